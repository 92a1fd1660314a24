import { type Execution, isTerminalStatus } from '@skillrun/core';
import type { ExecutionReader } from '../executions/execution-reader';
import type { RequestHeaders } from '../http/request-headers';

export interface Follow {
  skillId: string;
  executionId: string;
  /** The credentials it is read with (only its owner, or an admin, may). */
  headers: RequestHeaders;
  /** How long to follow it, at most; Infinity: until it ends or `signal` aborts. */
  boundMs: number;
  /** Told of each change read (progress, a retry, a step, the end). */
  onChange?: (execution: Execution) => void | Promise<void>;
  signal: AbortSignal;
}

/** The longest one wait asks of the reader; a longer follow is a loop of them. */
const WAIT_SLICE_SECONDS = 30;

/** How often an execution is read when the gateway keeps no more waits (MAX_WAITERS): our Retry-After. */
const POLL_MS = 1000;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Follows an execution through the gateway's own waits (what `Prefer: wait` does for HTTP): woken
 * by Redis at each change, never polling, until it ends, the bound passes or the signal aborts.
 * Answers the execution as last read.
 */
export async function followExecution(reader: ExecutionReader, follow: Follow): Promise<Execution> {
  const { skillId, executionId, headers, signal } = follow;
  const until = Date.now() + follow.boundMs;
  let { execution } = await reader.read({ skillId, executionId, headers });
  let seen = JSON.stringify(execution);
  await follow.onChange?.(execution);
  while (!isTerminalStatus(execution.status) && !signal.aborted) {
    const left = until - Date.now();
    if (left <= 0) break;
    const seconds = Math.min(WAIT_SLICE_SECONDS, left / 1000);
    const answer = await reader.read({
      skillId,
      executionId,
      headers,
      wait: { seconds, until: 'change', signal },
    });
    execution = answer.execution;
    // Past MAX_WAITERS a read answers at once: wait a poll interval rather than spin.
    if (answer.appliedWaitSeconds === undefined) await pause(POLL_MS, signal);
    const now = JSON.stringify(execution);
    if (now !== seen) {
      seen = now;
      await follow.onChange?.(execution);
    }
  }
  return execution;
}
