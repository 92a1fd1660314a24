import { type BatchCounts, type BatchView, isTerminalStatus } from '@skillrun/core';
import type { ExecutionBrief, StoredBatch } from '@skillrun/core/data';

/**
 * A batch as GET /batches/{id} shows it, from its record and its executions' statuses (those whose
 * record has expired are left out).
 */
export function viewOf(batch: StoredBatch, briefs: (ExecutionBrief | null)[]): BatchView {
  const executions = briefs.filter((brief): brief is ExecutionBrief => brief !== null);
  const counts: BatchCounts = {
    awaiting_approval: 0,
    accepted: 0,
    running: 0,
    completed: 0,
    failed: 0,
    timeout: 0,
    canceled: 0,
  };
  for (const { status } of executions) counts[status] += 1;
  return {
    batch_id: batch.id,
    caller: batch.caller,
    created_at: new Date(batch.createdAt).toISOString(),
    items: batch.items,
    ended: executions.every(({ status }) => isTerminalStatus(status)),
    counts,
    executions: executions.map(({ execution_id, skill_id, status }) => ({ execution_id, skill_id, status })),
  };
}
