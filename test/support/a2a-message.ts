import { type Part, Role } from '@a2a-js/sdk';

/** A data part holding `value` as JSON. */
function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** An A2A SendMessage request from a user: `inputs` as one data part, for the skill `skillId`. */
export function a2aMessage(skillId: string, inputs: Record<string, unknown>) {
  return {
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [dataPart(inputs)],
      metadata: { skill_id: skillId },
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}
