import { SkillError } from './skill-error';

/** What a write that must reach the replicas (ACK_REPLICAS) stands for. */
export type ReplicatedWrite = 'launch' | 'cancel' | 'task hand-in' | 'approval';

/**
 * The refusal of a write the replicas did not confirm in time (ACK_REPLICAS, ACK_TIMEOUT_MS): a
 * failover now could lose it, so it is not acknowledged. `undone`: it was taken back (a launch
 * withdrawn before any worker took it), so nothing happened; otherwise it holds on the master and
 * may or may not outlive a failover: asking again is safe (a cancel or a hand-in answers what is
 * the case; a launch with its Idempotency-Key finds its execution).
 */
export function notReplicated(write: ReplicatedWrite, undone: boolean): SkillError {
  const what = undone
    ? `it was withdrawn: nothing was started`
    : `it was applied on the primary and may not survive a failover`;
  return new SkillError(
    'SERVICE_UNAVAILABLE',
    `The ${write} was not confirmed on the replicas in time (ACK_REPLICAS); ${what}. Retry shortly`,
    {
      details: { reason: 'not_replicated', undone },
      suggestedAction: undone
        ? 'Retry with exponential backoff'
        : 'Retry with exponential backoff (with the same Idempotency-Key for an invocation)',
    },
  );
}

/**
 * The refusal to tell an execution's status the replicas have not confirmed in time (ACK_REPLICAS):
 * a worker writes it without waiting for them, so a failover now could undo it (an end undone, the
 * execution runs again), and it is not told yet.
 */
export function statusNotReplicated(): SkillError {
  return new SkillError(
    'SERVICE_UNAVAILABLE',
    "The execution's status is not confirmed on the replicas yet (ACK_REPLICAS); a failover now could undo it. Retry shortly",
    {
      details: { reason: 'not_replicated', undone: false },
      suggestedAction: 'Retry with exponential backoff',
    },
  );
}
