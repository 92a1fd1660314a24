import { readFile } from 'node:fs/promises';
import { isTerminalStatus } from '@skillrun/core';

/** One invocation the load sent, and what came back. */
export interface Sent {
  at: number;
  /** Index of the gateway it went to. */
  gateway: number;
  /** The HTTP status, or `none` when no answer came (connection refused or reset, or no answer in time). */
  status: number | 'none';
  retryAfter: string | null;
  /** With a 202. */
  executionId?: string;
}

/** What became of an acknowledged execution once the run is over. */
export type Final = string | 'missing' | 'unended';

/**
 * What a harness run saw: every invocation and its answer, the statuses sampled while it ran, each
 * acknowledged execution's final status read after it, and the runs of each body (from the file the
 * `recorded` skill appends to).
 */
export class History {
  readonly sent: Sent[] = [];
  /** Per execution, the statuses sampled, in order (a repeat only when it changed). */
  readonly sampled = new Map<string, string[]>();
  /** Per execution, when each of `sampled` was read (epoch ms). */
  readonly sampledAt = new Map<string, number[]>();
  readonly finals = new Map<string, Final>();
  /** Per execution, each run of its body: `worker startedAtMs attempt`. */
  readonly runs = new Map<string, string[]>();

  acknowledged(from = 0, to = Number.POSITIVE_INFINITY): string[] {
    return this.sent
      .filter((sent) => sent.status === 202 && sent.at >= from && sent.at < to)
      .map((sent) => sent.executionId as string);
  }

  sample(executionId: string, status: string, at = Date.now()): void {
    const seen = this.sampled.get(executionId) ?? [];
    if (seen.at(-1) === status) return;
    seen.push(status);
    this.sampled.set(executionId, seen);
    this.sampledAt.set(executionId, [...(this.sampledAt.get(executionId) ?? []), at]);
  }

  /** Reads the runs the `recorded` skill wrote down in `log`. */
  async readRuns(log: string): Promise<void> {
    const text = await readFile(log, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const [id, ...run] = line.split(' ');
      if (!id || run.length === 0) continue;
      this.runs.set(id, [...(this.runs.get(id) ?? []), run.join(' ')]);
    }
  }

  /** Acknowledged executions that are not there, or did not end, after the run. */
  lost(ids: readonly string[]): string[] {
    return ids.filter((id) => {
      const final = this.finals.get(id);
      return final === undefined || final === 'missing' || final === 'unended';
    });
  }

  /**
   * Executions whose sampled statuses went backwards (accepted, running, ended: in that order), or
   * that were seen with more than one final status, each with what was seen and when (`status@ms`,
   * epoch ms: a failure says which fault it was read around) and its body's runs.
   */
  backwards(): { id: string; seen: string[]; runs: string[] }[] {
    const rank = (status: string) => (isTerminalStatus(status) ? 2 : status === 'running' ? 1 : 0);
    return [...this.sampled]
      .filter(([, seen]) => {
        const ranks = seen.map(rank);
        return (
          ranks.some((value, index) => index > 0 && value < (ranks[index - 1] as number)) ||
          seen.filter(isTerminalStatus).length > 1
        );
      })
      .map(([id, seen]) => ({
        id,
        seen: seen.map((status, index) => `${status}@${this.sampledAt.get(id)?.[index]}`),
        runs: this.runs.get(id) ?? [],
      }));
  }

  /** Invocations answered neither 202 nor 503 with Retry-After (a 500, say): what no fault may cause. */
  unexpected(): Sent[] {
    return this.sent.filter(
      (sent) =>
        sent.status !== 'none' && sent.status !== 202 && (sent.status !== 503 || sent.retryAfter === null),
    );
  }

  /** Executions whose body ran more than once. */
  duplicated(ids: readonly string[]): string[] {
    return ids.filter((id) => (this.runs.get(id)?.length ?? 0) > 1);
  }
}
