import { SkillError } from '@skillrun/core';
import type { InvokeOptions } from '@skillrun/skill';
import type { CallRequest, SkillTask } from './messages';

/**
 * `ctx.invoke` of a composite written as code. Calls the composite made in earlier runs answer at
 * once, in order; a new call is collected, and once the composite has made every call it can make
 * without an answer (the next turn of the event loop), the run is suspended with them.
 */
export class CompositeCalls {
  private made = 0;
  private readonly requests: CallRequest[] = [];
  private resume: ((calls: CallRequest[]) => void) | undefined;
  /** Resolves with the new calls when the composite waits for them. */
  readonly suspended = new Promise<CallRequest[]>((resolve) => {
    this.resume = resolve;
  });

  constructor(private readonly composite: NonNullable<SkillTask['composite']>) {}

  /**
   * Whether the composite is still making again the calls an earlier run made: what it emits
   * meanwhile was emitted then (a composite decides from its input and its calls' answers alone).
   */
  get replaying(): boolean {
    return this.made < this.composite.answered.length;
  }

  invoke = (
    skill: string,
    inputs: Record<string, unknown>,
    options: InvokeOptions = {},
  ): Promise<unknown> => {
    const index = this.made++;
    const step = options.step ?? `call-${index + 1}`;
    if (!this.composite.calls.includes(skill)) {
      return refuse('TOOL_NOT_AVAILABLE', `"${skill}" is not listed in this skill's "calls"`);
    }
    const answered = this.composite.answered[index];
    if (answered) {
      if (answered.skill !== skill || answered.step !== step) {
        return refuse(
          'TOOL_EXECUTION_FAILED',
          `Invocation ${index + 1} was ${answered.skill} (step "${answered.step}") when this composite ran before, and is ${skill} (step "${step}") now: a composite must make the same calls each time it runs`,
        );
      }
      if (answered.ok) return Promise.resolve(answered.output);
      const { code, message, recoverable, details } = answered.error;
      return Promise.reject(new SkillError(code, message, { recoverable, details }));
    }
    this.requests.push({
      step,
      skill,
      inputs,
      ...(options.version ? { version: options.version } : {}),
      ...(options.concurrencyKey ? { concurrencyKey: options.concurrencyKey } : {}),
    });
    if (this.requests.length === 1) setImmediate(() => this.resume?.(this.requests));
    return new Promise(() => {});
  };
}

/** `ctx.invoke` of any other skill. */
export function notComposite(): Promise<never> {
  return refuse('TOOL_NOT_AVAILABLE', 'ctx.invoke is for skills whose mode is "composite"');
}

function refuse(code: string, message: string): Promise<never> {
  return Promise.reject(new SkillError(code, message, { recoverable: false }));
}
