export type {
  InvokeOptions,
  SkillContext,
  SkillExecutor,
  SkillLogger,
  SkillLogLevel,
  SkillMetadata,
} from './skill-context.js';
export type { MemoryEntry, MemoryHit, SkillMemory } from './skill-memory.js';
