import type { SkillDescriptor } from '../schemas/skill-descriptor';

/** An A2A AgentSkill (A2A 1.0), in its JSON form (the protocol's ProtoJSON). */
export interface A2aSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
  securityRequirements?: { schemes: Record<string, { list: string[] }> }[];
}

/** The names under which an Agent Card declares our credentials (its `securitySchemes`). */
export const A2A_SECURITY_SCHEMES = ['apiKey', 'bearer'] as const;

/** How to call the skill, told to a reader of the card: its required inputs, each with its type or default. */
function exampleOf(descriptor: SkillDescriptor): string {
  const inputs = Object.fromEntries(
    descriptor.inputs
      .filter((input) => input.required)
      .map((input) => [input.name, input.default ?? `<${input.type}>`]),
  );
  return `Message metadata {"skill_id": "${descriptor.id}"} and a data part ${JSON.stringify(inputs)}`;
}

/**
 * A skill as an A2A AgentSkill: id, name, description (with the deprecation message, if any),
 * tags, an example of a message that calls it, JSON in and out, and which of the card's security
 * schemes it needs (either; none for a public skill that takes no credentials).
 */
export function toA2aSkill(descriptor: SkillDescriptor): A2aSkill {
  const deprecated = descriptor['x-deprecated'];
  const open = descriptor.access === 'public' && descriptor.auth.type === 'none';
  return {
    id: descriptor.id,
    name: descriptor.name,
    description: deprecated
      ? `${descriptor.description} (Deprecated: ${deprecated.message})`
      : descriptor.description,
    tags: descriptor.tags ?? [],
    examples: [exampleOf(descriptor)],
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    ...(open
      ? {}
      : {
          securityRequirements: A2A_SECURITY_SCHEMES.map((scheme) => ({
            schemes: { [scheme]: { list: [] } },
          })),
        }),
  };
}
