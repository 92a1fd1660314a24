import { type Principal, SkillError } from '@skillrun/core';
import type { TaskRouting } from '@skillrun/core/a2a';

/** What a plain-text message names no skill for: the text, and who sent it (whose skills it may use). */
export interface PlainText {
  text: string;
  viewer: Principal | undefined;
}

/** The skill a plain-text message is routed to, its inputs, and how it was chosen (the task's metadata). */
export interface TextRoute {
  skillId: string;
  inputs: Record<string, unknown>;
  routing: TaskRouting;
}

/**
 * Chooses the skill for a message that names none (what a generic A2A client sends): the
 * configured default skill, or the model that picks one of the caller's skills as a tool.
 */
export interface PlainTextRouter {
  route(message: PlainText): Promise<TextRoute>;
}

/** How a message names a skill, said to a client whose message named none. */
export const HOW_TO_NAME_A_SKILL =
  'Name the skill: metadata {"skill_id": "..."} on the message with a data part carrying its inputs, or a data part {"skill_id": "...", "inputs": {...}}';

/** Neither A2A_DEFAULT_SKILL nor an LLM is configured: plain text is refused with how to name a skill. */
export const noRoute: PlainTextRouter = {
  async route() {
    throw new SkillError(
      'INVALID_INPUT',
      `The message names no skill, and this agent routes no plain text (neither A2A_DEFAULT_SKILL nor an LLM is configured). ${HOW_TO_NAME_A_SKILL}`,
      { details: [{ path: '/message/metadata/skill_id', message: 'names the skill to run' }] },
    );
  },
};
