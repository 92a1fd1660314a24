import { SkillError } from '@skillrun/core';
import type { SkillDiscovery } from '../../skills/skill-discovery';
import type { PlainText, PlainTextRouter, TextRoute } from './plain-text-router';
import { textInputOf } from './text-input';

/**
 * A2A_DEFAULT_SKILL: every plain-text message runs this skill (its latest version the caller may
 * see), the text as its one string input (textInputOf). A skill without such an input is refused
 * with a message that says so, and what it must have.
 */
export class DefaultSkillRoute implements PlainTextRouter {
  constructor(
    private readonly skillId: string,
    private readonly discovery: SkillDiscovery,
  ) {}

  async route({ text, viewer }: PlainText): Promise<TextRoute> {
    const descriptor = await this.discovery.describe(this.skillId, undefined, viewer);
    const input = textInputOf(descriptor);
    if (input === undefined) {
      throw new SkillError(
        'NOT_CONFIGURED',
        `A2A_DEFAULT_SKILL names "${this.skillId}", which has no one input to take a plain-text message: its input schema must require one string property (and no other), or require none and have one string property`,
      );
    }
    return {
      skillId: this.skillId,
      inputs: { [input]: text },
      routing: { by: 'default_skill', skill_id: this.skillId, input },
    };
  }
}
