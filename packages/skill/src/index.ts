export type { InvokeOptions, SkillContext, SkillExecutor, SkillLogger, SkillLogLevel } from './skill-context';
export type { MemoryEntry, MemoryHit, SkillMemory } from './skill-memory';
