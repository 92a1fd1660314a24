import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Principal } from '@skillrun/core';
import type { TaskRouting } from '@skillrun/core/a2a';
import { HOW_TO_NAME_A_SKILL, type PlainTextRouter } from './plain-text-router';

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The skill a message runs, its inputs, and, for plain text, how it was routed to it. */
export interface MessageSkill {
  skillId: string;
  inputs: Json;
  routing?: TaskRouting;
}

/**
 * The skill a message runs: `skill_id` in the message's (or the request's) metadata, its inputs
 * the data part; or a data part `{skill_id, inputs}`; or, for a message of text parts that names
 * no skill (what a generic agent sends), the one the plain-text router chooses for the text.
 */
export async function messageSkillOf(
  message: Message,
  requestMetadata: Json | undefined,
  viewer: Principal | undefined,
  router: PlainTextRouter,
): Promise<MessageSkill> {
  const data = message.parts.find((part) => part.content?.$case === 'data')?.content?.value as unknown;
  const named = [message.metadata?.skill_id, requestMetadata?.skill_id].find((id) => typeof id === 'string');
  if (typeof named === 'string') {
    if (data !== undefined && !isJson(data))
      throw new RequestMalformedError('The data part must be a JSON object (the inputs)');
    return { skillId: named, inputs: data ?? {} };
  }
  if (isJson(data) && typeof data.skill_id === 'string') {
    const inputs = data.inputs ?? {};
    if (!isJson(inputs)) throw new RequestMalformedError('inputs must be a JSON object');
    return { skillId: data.skill_id, inputs };
  }
  const texts = message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
  if (data === undefined && texts.length > 0) return router.route({ text: texts.join('\n'), viewer });
  throw new RequestMalformedError(HOW_TO_NAME_A_SKILL);
}
