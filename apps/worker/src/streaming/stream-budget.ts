import { SkillError } from '@skillrun/core';

/** How much an attempt may stream (worker config MAX_CHUNK_BYTES, MAX_STREAM_BYTES). */
export interface StreamLimits {
  /** The largest one chunk may be, as JSON bytes. */
  maxChunkBytes: number;
  /** The most all of an attempt's chunks may add up to, as JSON bytes. */
  maxStreamBytes: number;
}

/**
 * What one attempt has streamed, against its limits. A chunk over either bound is refused, and so
 * is every chunk after it: the attempt fails with OUTPUT_TOO_LARGE whatever the skill does next
 * (it may catch the error ctx.emit throws). Counted where the chunks are made (the sandbox thread,
 * so that a huge chunk never crosses to the worker's thread) and again where they are written.
 */
export class StreamBudget {
  private spent = 0;
  private refusal: SkillError | undefined;

  constructor(private readonly limits: StreamLimits) {}

  /** Counts one chunk (its JSON); answers the error the attempt fails with if it is over a bound. */
  take(json: string): SkillError | undefined {
    if (this.refusal) return this.refusal;
    const bytes = Buffer.byteLength(json);
    const { maxChunkBytes, maxStreamBytes } = this.limits;
    if (bytes > maxChunkBytes) {
      this.refusal = new SkillError(
        'OUTPUT_TOO_LARGE',
        `The skill emitted a chunk of ${bytes} bytes as JSON, over the limit of ${maxChunkBytes} (MAX_CHUNK_BYTES)`,
        { details: { bytes, limit: maxChunkBytes } },
      );
    } else if (this.spent + bytes > maxStreamBytes) {
      this.refusal = new SkillError(
        'OUTPUT_TOO_LARGE',
        `The skill streamed over ${maxStreamBytes} bytes as JSON in all (MAX_STREAM_BYTES)`,
        { details: { bytes: this.spent + bytes, limit: maxStreamBytes } },
      );
    } else {
      this.spent += bytes;
    }
    return this.refusal;
  }

  /** The error the attempt fails with, once a chunk was over a bound. */
  get exceeded(): SkillError | undefined {
    return this.refusal;
  }
}
