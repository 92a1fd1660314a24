import { AddressPolicy, checkedUrl, OutboundRefusal, SkillError } from '@skillrun/core';

/**
 * Refuses, as bad input, a webhook URL that no delivery could be sent to: not http(s), credentials
 * in it, or an address written in it that is not public (nor in OUTBOUND_ALLOW). A name is checked
 * when each delivery is sent, against every address it then resolves to.
 */
export class WebhookUrlCheck {
  private readonly policy: AddressPolicy;

  constructor(allow: readonly string[]) {
    this.policy = new AddressPolicy(allow);
  }

  assert(url: string, path: string): void {
    try {
      checkedUrl(url, this.policy);
    } catch (error) {
      if (!(error instanceof OutboundRefusal)) throw error;
      throw new SkillError('INVALID_INPUT', `The webhook URL is refused: ${error.message}`, {
        details: [{ path, message: error.message }],
      });
    }
  }
}
