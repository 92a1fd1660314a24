import { type ErrorBody, SkillError, type SkillSchemas } from '@skillrun/core';
import type { BodyOutcome } from '../bodies/skill-body';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { ChunkWriter } from '../streaming/chunk-writer';

/** A completed attempt's output, as the JSON the record will hold. */
export interface Serialized {
  ok: true;
  json: string;
}

/** An attempt's outcome once checked: an output that ended well is serialized. */
export type CheckedOutcome = Exclude<BodyOutcome, { ok: true }> | Serialized;

export interface OutputCheckDeps {
  schemas: SkillSchemas;
  /** The largest output, as JSON bytes, an execution may complete with (MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
}

/**
 * An attempt's validate step: an output that ended well must match the skill's output schema and
 * fit in MAX_OUTPUT_BYTES as JSON, and what the attempt streamed must have kept within its bounds.
 */
export class OutputCheck {
  constructor(private readonly deps: OutputCheckDeps) {}

  /** The run's outcome, its output (if it ended well) checked against the skill's schema and size. */
  check(outcome: BodyOutcome, { definition }: LoadedSkill): CheckedOutcome {
    return 'waiting' in outcome || !outcome.ok ? outcome : this.output(outcome.output, definition.output);
  }

  /**
   * The checked outcome of an attempt that streamed, once its chunk writer is closed: every chunk is
   * in Redis before the outcome is written, so that the end comes after all of them. A run that
   * ended well or failed fails with OUTPUT_TOO_LARGE if it streamed over a bound (one that timed
   * out, was canceled or waits is as it was).
   */
  async closed(outcome: CheckedOutcome, chunks: ChunkWriter): Promise<CheckedOutcome> {
    const exceeded = await chunks.close();
    return exceeded && 'ok' in outcome && !('timedOut' in outcome) && !('canceled' in outcome)
      ? { ok: false, error: exceeded.toBody() }
      : outcome;
  }

  private output(output: unknown, schema: LoadedSkill['definition']['output']): CheckedOutcome {
    const checked = this.deps.schemas.validate(schema, output, '/output');
    if (!checked.ok) {
      const error = new SkillError('INVALID_OUTPUT', "The skill's output does not match its output schema", {
        details: checked.violations,
      });
      return { ok: false, error: error.toBody() };
    }
    return this.serialized(checked.value);
  }

  private serialized(output: unknown): Serialized | { ok: false; error: ErrorBody } {
    const json = JSON.stringify(output ?? null);
    const bytes = Buffer.byteLength(json);
    if (bytes <= this.deps.maxOutputBytes) return { ok: true, json };
    const error = new SkillError(
      'OUTPUT_TOO_LARGE',
      `The skill's output is ${bytes} bytes as JSON, over the limit of ${this.deps.maxOutputBytes} (MAX_OUTPUT_BYTES)`,
      { details: { bytes, limit: this.deps.maxOutputBytes } },
    );
    return { ok: false, error: error.toBody() };
  }
}
