import type { SkillDescriptor } from '../schemas/skill-descriptor';

/**
 * What a tool says of itself: the skill's description, and its deprecation after a blank line, so
 * that a model that reads only descriptions still learns to avoid it.
 */
export function toolDescription(descriptor: SkillDescriptor): string {
  const deprecated = descriptor['x-deprecated'];
  return deprecated
    ? `${descriptor.description}\n\nDeprecated: ${deprecated.message}`
    : descriptor.description;
}
