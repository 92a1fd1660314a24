import { SkillError } from '../../errors/skill-error';
import type { ErrorBody } from '../../schemas/error-body';

/**
 * The error of an execution accepted at `createdAt` (epoch ms) that waited past its queue timeout
 * without starting: it ends as `timeout`, and says it never ran.
 */
export function neverStartedError(createdAt: number, queueTimeoutMs: number, now: number): ErrorBody {
  const waited = now - createdAt;
  return new SkillError(
    'EXECUTION_TIMEOUT',
    `The execution never started: it waited ${waited} ms for a worker, past its queue timeout of ${queueTimeoutMs} ms`,
    { details: { never_started: true, waited_ms: waited, queue_timeout_ms: queueTimeoutMs } },
  ).toBody();
}

/** Whether an execution accepted at `createdAt` that has not started is past its queue timeout at `now`. */
export function isPastQueueTimeout(
  createdAt: number,
  queueTimeoutMs: number | undefined,
  now: number,
): queueTimeoutMs is number {
  return queueTimeoutMs !== undefined && now > createdAt + queueTimeoutMs;
}
