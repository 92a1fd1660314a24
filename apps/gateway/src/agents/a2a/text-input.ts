import type { SkillDescriptor } from '@skillrun/core';

/**
 * The input of a skill that takes a plain-text message whole: the one string its input schema
 * requires; or, when it requires nothing, its one string property. Undefined when there is no
 * such single input (more than one, or none), so that no text is ever put in a guessed place.
 */
export function textInputOf(descriptor: SkillDescriptor): string | undefined {
  const strings = descriptor.inputs.filter((input) => input.type === 'string');
  const required = descriptor.inputs.filter((input) => input.required);
  if (required.length > 0) {
    const [only] = required;
    return required.length === 1 && only?.type === 'string' ? only.name : undefined;
  }
  return strings.length === 1 ? strings[0]?.name : undefined;
}
