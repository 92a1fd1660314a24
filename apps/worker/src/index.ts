export { loadWorkerConfig, type WorkerConfig, WorkerConfigSchema } from './config';
export { type LoadedSkill, loadSkill, loadSkills, SkillLoadError } from './skill-loader';
export { WorkerService } from './worker-service';
