export { checkPipeline, type SkillSignature } from './check-pipeline';
export { compileTemplates } from './compile-templates';
export type { CompiledValue } from './compiled-value';
export { findCallCycle } from './find-call-cycle';
export { isTruthy } from './is-truthy';
export { renderValue, type TemplateScope } from './render-value';
