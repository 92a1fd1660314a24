import type { Execution } from '@skillrun/core';

/** What one notifications/progress says, its token aside. */
export interface ProgressReport {
  progress: number;
  total: number;
  message: string;
}

/** The scale of `progress`: the skill's percentage (ctx.progress). */
const TOTAL = 100;

/**
 * What a chunk adds to `progress`: small enough that a skill's output never moves the bar (a
 * million chunks come to 1 %), large enough that 100 plus it is another number.
 */
export const CHUNK_STEP = 1e-6;

/**
 * The notifications/progress of one tools/call, in the order its execution is followed: each
 * progress of the skill (`progress` its percentage, `total` 100, "running, 40%"), and each chunk
 * it streams (the text of a text chunk, the JSON of any other as `message`). The revision wants
 * `progress` to increase with every notification: a chunk's is the last one's plus CHUNK_STEP, and a
 * skill's progress at or below what was already told (a retry starting over, or one the chunks
 * went past) is not told. No I/O: the call sends what this answers.
 */
export class McpProgress {
  /** The last `progress` told; none yet. */
  private last: number | undefined;
  /** The skill's progress as last read, told or not. */
  private reported: number | undefined;

  /** A change of the execution: a report when its progress changed and is above the last told. */
  status(execution: Execution): ProgressReport | undefined {
    const { progress } = execution;
    if (progress === undefined || progress === this.reported) return undefined;
    this.reported = progress;
    if (this.last !== undefined && progress <= this.last) return undefined;
    this.last = progress;
    return { progress, total: TOTAL, message: `${execution.status}, ${progress}%` };
  }

  /** A chunk the skill streamed: always a report. */
  chunk(chunk: unknown): ProgressReport {
    const progress = (this.last ?? 0) + CHUNK_STEP;
    this.last = progress;
    return { progress, total: TOTAL, message: typeof chunk === 'string' ? chunk : JSON.stringify(chunk) };
  }
}
