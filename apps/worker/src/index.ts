export { loadWorkerConfig, type WorkerConfig, WorkerConfigSchema } from './config';
export { LlmClient, type LlmRequest, type LlmUsage } from './llm/llm-client';
export {
  type LlmDefaults,
  LlmSkillSettings,
  type ResolvedLlmSettings,
  resolveLlmSettings,
} from './llm/llm-settings';
export type { LoadedSkill } from './skills/loaded-skill';
export { loadSkill, loadSkills, SkillLoadError } from './skills/skill-loader';
export { WorkerService } from './worker-service';
