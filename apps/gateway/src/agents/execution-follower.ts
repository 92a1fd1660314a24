import { type Execution, isTerminalStatus } from '@skillrun/core';
import type { EventPosition } from '../executions/execution-events';
import type { ExecutionReader } from '../executions/execution-reader';
import type { RequestHeaders } from '../http/request-headers';

export interface Follow {
  skillId: string;
  executionId: string;
  /** The credentials it is read with (only its owner, or an admin, may). */
  headers: RequestHeaders;
  /** How long to follow it, at most; Infinity: until it ends or `signal` aborts. */
  boundMs: number;
  /** Whether to stop following before the end: once the execution read satisfies it. */
  until?: (execution: Execution) => boolean;
  /** Told of each change read (progress, a retry, a step, the end). */
  onChange?: (execution: Execution) => void | Promise<void>;
  /**
   * Told of each chunk of output the skill streams (ctx.emit), in order, once each, all before the
   * end is told; without it no chunk is read.
   */
  onChunk?: (chunk: unknown, seq: number) => void | Promise<void>;
  signal: AbortSignal;
}

/**
 * Follows an execution live (ExecutionReader.follow: woken by Redis at each change and chunk, the
 * loop GET events follows it with), until it ends, `until` holds, the bound passes or the signal
 * aborts. Answers the execution as last read. Announcements lost with Redis's connection end one
 * follow: the next goes on from where it was, neither telling a chunk twice nor missing one.
 */
export async function followExecution(reader: ExecutionReader, follow: Follow): Promise<Execution> {
  const { skillId, executionId, headers } = follow;
  const signal = Number.isFinite(follow.boundMs)
    ? AbortSignal.any([follow.signal, AbortSignal.timeout(Math.max(0, follow.boundMs))])
    : follow.signal;
  const position: EventPosition = { changedAt: 0, seq: 0 };
  let execution: Execution | undefined;
  do {
    const events = reader.follow({
      skillId,
      executionId,
      headers,
      after: position,
      chunks: follow.onChunk !== undefined,
      signal,
    });
    for await (const event of events) {
      if (event.type === 'chunk') {
        position.seq = event.seq;
        await follow.onChunk?.(event.chunk, event.seq);
        continue;
      }
      position.changedAt = event.changedAt;
      execution = event.execution;
      await follow.onChange?.(execution);
      if (follow.until?.(execution)) return execution;
    }
  } while (!signal.aborted && !(execution && isTerminalStatus(execution.status)));
  // Nothing was told only when the signal aborted before the first read: read it now.
  return execution ?? (await reader.read({ skillId, executionId, headers })).execution;
}
