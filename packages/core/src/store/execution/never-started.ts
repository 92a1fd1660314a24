import { SkillError } from '../../errors/skill-error';
import type { ErrorBody } from '../../schemas/error-body';

/**
 * The error of an execution due to start at `dueAt` (epoch ms: its acceptance, or its scheduled
 * time if delayed) that waited past its queue timeout without starting: it ends as `timeout`, and
 * says it never ran.
 */
export function neverStartedError(dueAt: number, queueTimeoutMs: number, now: number): ErrorBody {
  const waited = now - dueAt;
  return new SkillError(
    'EXECUTION_TIMEOUT',
    `The execution never started: it waited ${waited} ms for a worker, past its queue timeout of ${queueTimeoutMs} ms`,
    { details: { never_started: true, waited_ms: waited, queue_timeout_ms: queueTimeoutMs } },
  ).toBody();
}

/**
 * Whether an execution due at `dueAt` that has not started is past its queue timeout at `now`: a
 * delayed one's wait counts from when it is due, not from its acceptance.
 */
export function isPastQueueTimeout(
  dueAt: number,
  queueTimeoutMs: number | undefined,
  now: number,
): queueTimeoutMs is number {
  return queueTimeoutMs !== undefined && now > dueAt + queueTimeoutMs;
}
