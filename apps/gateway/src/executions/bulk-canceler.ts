import { type BulkCancelRequest, type BulkCancelResult, isTerminalStatus } from '@skillrun/core';
import type { RequestHeaders } from '../http/request-headers';
import { assertMayCancel, type ExecutionCanceler } from './execution-canceler';
import type { ExecutionHistory } from './execution-history';

/** How many cancels one call sends to Redis at a time. */
const PARALLEL_CANCELS = 20;

/**
 * POST /executions/cancel (ours; Temporal's batch cancel, Trigger.dev's bulk actions): every
 * execution a history filter finds that has not ended, the caller's own (an admin's: anyone's), a
 * page at a time, each by the ordinary atomic cancel. Canceled executions keep their place in the
 * history, so the cursor goes on where this call stopped.
 */
export class BulkCanceler {
  constructor(
    private readonly history: ExecutionHistory,
    private readonly canceler: ExecutionCanceler,
  ) {}

  async cancel(request: BulkCancelRequest, headers: RequestHeaders): Promise<BulkCancelResult> {
    const principal = await this.history.principalOf(
      headers,
      "Canceling executions in bulk needs credentials: it cancels the caller's own",
    );
    assertMayCancel(principal);
    const { executions, next_cursor } = await this.history.find(
      request,
      principal,
      request.limit,
      (execution) => !isTerminalStatus(execution.status),
    );
    let canceled = 0;
    for (let start = 0; start < executions.length; start += PARALLEL_CANCELS) {
      const chunk = executions.slice(start, start + PARALLEL_CANCELS);
      const ended = await Promise.all(
        chunk.map((execution) => this.canceler.cancelFound(execution, principal)),
      );
      canceled += ended.filter(Boolean).length;
    }
    return { canceled, next_cursor };
  }
}
