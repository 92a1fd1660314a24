export type {
  InvokeOptions,
  SkillContext,
  SkillExecutor,
  SkillLogger,
  SkillLogLevel,
} from './skill-context.js';
export type { MemoryEntry, MemoryHit, SkillMemory } from './skill-memory.js';
