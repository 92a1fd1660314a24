import { setTimeout as delay } from 'node:timers/promises';
import { type Execution, isTerminalStatus, type Principal } from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import type { ExecutionWatch } from './execution-watch';
import { readable } from './readable-execution';

/** What a follower of an execution is told, in order. */
export type ExecutionEvent =
  /** The whole status, at a change; `changedAt`: when it changed (epoch ms). */
  | { type: 'status'; execution: Execution; changedAt: number }
  /** One chunk of the output the skill streams (ctx.emit), `seq` counting from 1. */
  | { type: 'chunk'; seq: number; chunk: unknown };

/** Where a follower is: the last status it saw (its change time; 0 for none) and the last chunk (0: none). */
export interface EventPosition {
  changedAt: number;
  seq: number;
}

export interface FollowRequest {
  skillId: string;
  executionId: string;
  /** Who reads it: only its owner (or an admin) may, as for GET status. */
  principal: Principal | undefined;
  /** Told of what came after this only (a reconnection's Last-Event-ID). */
  after: EventPosition;
  /**
   * A watch of the execution, subscribed: it wakes the follower at each change and chunk (or a
   * stand-in that wakes it to read again, where no watch could be had: polling-watch.ts).
   */
  watch: Pick<ExecutionWatch, 'next'>;
  /** Whether to tell chunks (default true): a follower of the status alone reads none. */
  chunks?: boolean;
  /** This gateway's watcher id, which the first read marks the record with (announcements). */
  watcherId: string;
  signal: AbortSignal;
}

/** Chunks read from Redis at once. */
const CHUNK_PAGE = 500;

/** How long a follower waits for an announcement before it reads the record anyway. */
const QUIET_READ_MS = 60_000;

/** How long a follower waits to read again a status the replicas did not confirm (ACK_REPLICAS). */
const UNCONFIRMED_RETRY_MS = 250;

/**
 * An execution's status changes and streamed chunks, in order, from a position on, until it ends:
 * the one loop every live surface follows an execution with (server-sent events here; MCP's
 * progress and A2A's artifact updates can follow the same). Woken by Redis (the watch), never
 * polling. A status is told when it changed since the last one told; chunks in seq order, each
 * once. Every chunk of an execution comes before its end (append-chunks.lua appends nothing
 * after it), so the end is told last. A status past `accepted` is told only once the replicas
 * have it (ACK_REPLICAS: one a failover undoes would be told twice); until then it is read again.
 * A record this reader may not see throws EXECUTION_NOT_FOUND.
 */
export class ExecutionEvents {
  constructor(
    private readonly store: ExecutionStore,
    private readonly engine: Pick<ExecutionEngine, 'readSession'>,
  ) {}

  async *follow(request: FollowRequest): AsyncGenerator<ExecutionEvent, void, undefined> {
    const { skillId, executionId, principal, watch, signal } = request;
    const chunks = request.chunks ?? true;
    let { changedAt, seq } = request.after;
    let lastJson: string | undefined;
    let options: { watcher?: string } = { watcher: request.watcherId };
    let readRecord = true;
    let current: Execution | undefined;
    let streamed = 0;
    let session = this.engine.readSession();
    while (!signal.aborted) {
      if (readRecord || !current) {
        session = this.engine.readSession();
        const record = await this.store.records.read(executionId, options);
        options = {};
        current = readable(record, skillId, executionId, principal);
        streamed = record?.chunks ?? 0;
      }
      const ended = isTerminalStatus(current.status);
      const status = readRecord ? statusEvent(current, changedAt, lastJson) : undefined;
      if (status && !(await session.mayTell(current))) {
        if (!(await delay(UNCONFIRMED_RETRY_MS, true, { signal }).catch(() => false))) return;
        continue;
      }
      if (status && !ended) {
        yield status.event;
        ({ changedAt } = status.event);
        lastJson = status.json;
      }
      // Woken by chunks alone, the record was not read: its count is not known, so read anyway.
      if (chunks && (!readRecord || streamed > seq)) {
        for await (const chunk of this.chunksAfter(executionId, seq)) {
          yield chunk;
          seq = chunk.seq;
        }
      }
      if (ended) {
        if (status) yield status.event;
        return;
      }
      const woken = await watch.next(QUIET_READ_MS, signal);
      if (woken === 'lost') return;
      // Output means it runs: one that still shows `accepted` is read again, and shows it.
      readRecord = woken !== 'chunks' || current.status === 'accepted';
    }
  }

  /** Every chunk after `after` that is there now, page by page. */
  private async *chunksAfter(
    executionId: string,
    after: number,
  ): AsyncGenerator<ExecutionEvent & { type: 'chunk' }> {
    let from = after;
    for (;;) {
      const page = await this.store.chunks.read(executionId, from, CHUNK_PAGE);
      for (const { seq, chunk } of page) yield { type: 'chunk', seq, chunk };
      const last = page.at(-1);
      if (!last || page.length < CHUNK_PAGE) return;
      from = last.seq;
    }
  }
}

/**
 * The status to tell, when it changed since the last one told (at `changedAt`, as `lastJson`): two
 * changes in one millisecond share a time, so the second is told all the same.
 */
function statusEvent(
  execution: Execution,
  changedAt: number,
  lastJson: string | undefined,
): { event: ExecutionEvent & { type: 'status' }; json: string } | undefined {
  const { updated_at, completed_at } = execution.timestamps;
  const at = Date.parse(completed_at ?? updated_at);
  const json = JSON.stringify(execution);
  if (at > changedAt || (at === changedAt && lastJson !== undefined && json !== lastJson)) {
    return { event: { type: 'status', execution, changedAt: at }, json };
  }
  return undefined;
}
