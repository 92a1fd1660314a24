import type { SkillError } from '@skillrun/core';
import type { ExecutionChunks } from '@skillrun/core/data';
import { StreamBudget, type StreamLimits } from './stream-budget';

export interface ChunkWriterOptions {
  chunks: ExecutionChunks;
  executionId: string;
  limits: StreamLimits;
  /** Told once when chunks could not be written (Redis away): they are lost, the attempt goes on. */
  onLost(error: unknown): void;
}

/** The most chunks one append carries. */
const MOST_PER_APPEND = 500;

/**
 * The chunks one attempt streams, written to the execution's chunk stream in order: one append
 * in flight at a time, and the chunks that arrive meanwhile go together in the next one, so a skill
 * that emits a chunk per item costs a Redis call per round trip, not per chunk. Made only when a
 * skill first emits: an attempt that streams nothing costs nothing. Closed before the attempt's
 * outcome is written, so that every chunk is in Redis before the end.
 */
export class ChunkWriter {
  private readonly budget: StreamBudget;
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  /** Closed, or its execution ended (an append was refused): nothing more is written. */
  private done = false;
  private lost = false;

  constructor(private readonly options: ChunkWriterOptions) {
    this.budget = new StreamBudget(options.limits);
  }

  /** Streams a value; false when it is refused (over a bound, or the attempt is over). */
  emit(value: unknown): boolean {
    return this.add(JSON.stringify(value ?? null));
  }

  /** Streams a chunk given as its JSON; false when it is refused (over a bound, or the attempt is over). */
  add(json: string): boolean {
    if (this.done || this.budget.take(json)) return false;
    this.pending.push(json);
    // From the next microtask: the chunks one message of a sandbox thread brings go in one append.
    this.writing ??= Promise.resolve().then(() => this.drain());
    return true;
  }

  /** Why the attempt fails, once a chunk was over a bound. */
  get exceeded(): SkillError | undefined {
    return this.budget.exceeded;
  }

  /** Writes what is pending and takes nothing more; answers why the attempt fails, if a chunk was over a bound. */
  async close(): Promise<SkillError | undefined> {
    this.done = true;
    await this.writing;
    return this.budget.exceeded;
  }

  private async drain(): Promise<void> {
    const { chunks, executionId } = this.options;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MOST_PER_APPEND);
      try {
        const appended = await chunks.append(executionId, batch);
        // Ended meanwhile (canceled, timed out): its stream takes nothing more.
        if ('refused' in appended) {
          this.done = true;
          this.pending = [];
        }
      } catch (error) {
        if (!this.lost) this.options.onLost(error);
        this.lost = true;
      }
    }
    this.writing = undefined;
  }
}
