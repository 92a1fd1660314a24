import { type ListTasksRequest, type ListTasksResponse, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Execution } from '@skillrun/core';
import { statusesOf, statusTimestampOf, type TaskNotes, toA2aTask } from '@skillrun/core/a2a';
import type { ExecutionHistory } from '../../executions/execution-history';
import { decodeCursor, encodeCursor } from '../../http/page-cursor';
import type { RequestHeaders } from '../../http/request-headers';

export interface TaskListDeps {
  history: ExecutionHistory;
  notes: TaskNotes;
}

/** A2A 1.0's page size: 50 unless asked, 1 to 100. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** Where a page starts: the history's cursor, and how many tasks the pages before it held. */
interface PageToken {
  cursor: string;
  before: number;
}

function tokenOf(pageToken: string): PageToken {
  return decodeCursor(pageToken, ({ c, n }) =>
    typeof c === 'string' && Number.isSafeInteger(n) && (n as number) >= 0
      ? { cursor: c, before: n as number }
      : undefined,
  );
}

/** The request's filters and page, checked as A2A 1.0 bounds them (RequestMalformedError otherwise). */
function checked(request: ListTasksRequest): { pageSize: number; after?: number } {
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new RequestMalformedError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  if (request.historyLength !== undefined && request.historyLength < 0) {
    throw new RequestMalformedError('historyLength must not be negative');
  }
  if (request.status === TaskState.UNRECOGNIZED) {
    throw new RequestMalformedError('status must be a TaskState (TASK_STATE_WORKING, ...)');
  }
  if (request.statusTimestampAfter === undefined) return { pageSize };
  const after = Date.parse(request.statusTimestampAfter);
  if (Number.isNaN(after))
    throw new RequestMalformedError('statusTimestampAfter must be an ISO 8601 timestamp');
  return { pageSize, after };
}

/**
 * ListTasks (A2A 1.0) over the execution history: the caller's own tasks (an admin's too: its
 * own), newest first by creation, filtered by state, context and status timestamp, a page at a
 * time. Tasks have no history (historyLength changes nothing); artifacts only when asked for.
 * totalSize counts the pages before this one, this page, and the matches the history's scan
 * budget finds after it: exact unless the caller's history is longer than that budget, when it
 * is what was found so far (a lower bound).
 */
export class TaskList {
  constructor(private readonly deps: TaskListDeps) {}

  async list(request: ListTasksRequest, headers: RequestHeaders): Promise<ListTasksResponse> {
    const { pageSize, after } = checked(request);
    const token = request.pageToken ? tokenOf(request.pageToken) : undefined;
    const principal = await this.deps.history.principalOf(
      headers,
      "Listing tasks needs credentials: it shows the caller its own (a task's id alone reads it with GetTask)",
    );
    const statuses =
      request.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : statusesOf(request.status);
    // A state no execution is ever in (input required, rejected, auth required) has no tasks.
    if (statuses?.length === 0) return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
    const inContext = request.contextId
      ? await this.deps.notes.inContext(principal.callerId, request.contextId)
      : undefined;
    const matches = (execution: Execution) =>
      (after === undefined || Date.parse(statusTimestampOf(execution)) >= after) &&
      (inContext === undefined ||
        inContext.has(execution.execution_id) ||
        // A task sent without a context is its own context.
        execution.execution_id === request.contextId);
    const query = {
      // An admin's too: its own, as anyone's.
      caller_id: principal.callerId,
      ...(statuses ? { status: statuses.join(',') } : {}),
      ...(token ? { cursor: token.cursor } : {}),
    };
    const page = await this.deps.history.find(query, principal, pageSize, matches);
    // Counted, not kept: the matches after this page, as far as one more scan of the history goes.
    let ahead = 0;
    let unscanned = false;
    if (page.next_cursor !== null) {
      const rest = await this.deps.history.find(
        { ...query, cursor: page.next_cursor },
        principal,
        Number.MAX_SAFE_INTEGER,
        (execution) => {
          if (matches(execution)) ahead += 1;
          return false;
        },
      );
      unscanned = rest.next_cursor !== null;
    }
    const before = token?.before ?? 0;
    const notes = await this.deps.notes.readMany(page.executions.map((execution) => execution.execution_id));
    const tasks = page.executions.map((execution, index) => {
      const task = toA2aTask(execution, notes[index]);
      return request.includeArtifacts ? task : { ...task, artifacts: [] };
    });
    const more = page.next_cursor !== null && (ahead > 0 || unscanned);
    return {
      tasks,
      nextPageToken: more ? encodeCursor({ c: page.next_cursor, n: before + tasks.length }) : '',
      pageSize: tasks.length,
      totalSize: before + tasks.length + ahead,
    };
  }
}
