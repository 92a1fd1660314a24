import { type Execution, isTerminalStatus, SkillError, withTimeout } from '@skillrun/core';
import type { ExecutionStore } from '@skillrun/core/data';
import { createSession, type Session } from 'better-sse';
import type { Request, Response } from 'express';
import type { ExecutionIdentity } from '../auth/execution-identity';
import type { ExecutionWatcher } from './execution-watcher';
import { readable } from './readable-execution';
import type { StreamQuota } from './stream-quota';

export interface ExecutionStreamsDeps {
  identity: ExecutionIdentity;
  store: ExecutionStore;
  watcher: ExecutionWatcher;
  /** Streams one caller (or one anonymous address) may keep open on this gateway. */
  quota: StreamQuota;
  /** A comment this often keeps proxies from closing a quiet stream. */
  heartbeatMs: number;
}

/** How long a stream waits for its subscription before it gives up (the client reconnects). */
const SUBSCRIBE_TIMEOUT_MS = 5000;

/**
 * GET events: an execution's status as server-sent events, a snapshot first and then one at every
 * change (status, progress, steps) until it ends, when the stream closes. The changes come from
 * Redis (announced in this gateway's watcher inbox), so any gateway serves any execution. Each
 * event's id is the time of the change it shows: a client that reconnects with Last-Event-ID gets
 * the current state only if it changed since (each event is the whole status, so the latest one is
 * all a client missed). Streams count against MAX_WAITERS with waiting reads, and against a per-caller bound.
 */
export class ExecutionStreams {
  constructor(private readonly deps: ExecutionStreamsDeps) {}

  async stream(req: Request<{ skillId: string; executionId: string }>, res: Response): Promise<void> {
    const { skillId, executionId } = req.params;
    const { principal } = await this.deps.identity.read(skillId, executionId, req.headers);
    const caller = principal?.callerId ?? `address:${req.ip ?? req.socket.remoteAddress ?? ''}`;
    const release = this.deps.quota.take(caller, (seconds) => res.setHeader('Retry-After', seconds));
    const watch = this.deps.watcher.watch(executionId);
    if (!watch) {
      release();
      res.setHeader('Retry-After', '5');
      throw new SkillError(
        'RATE_LIMIT_EXCEEDED',
        'This gateway has as many open streams and waits as it keeps',
      );
    }
    try {
      const session = await createSession(req, res, {
        keepAlive: this.deps.heartbeatMs,
        retry: 1000,
        headers: { 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
      });
      await this.follow(session, watch, { skillId, executionId, principal }, res);
    } finally {
      watch.release();
      release();
    }
  }

  private async follow(
    session: Session,
    watch: NonNullable<ReturnType<ExecutionWatcher['watch']>>,
    {
      skillId,
      executionId,
      principal,
    }: { skillId: string; executionId: string; principal: Parameters<typeof readable>[3] },
    res: Response,
  ): Promise<void> {
    const gone = new AbortController();
    session.once('disconnected', () => gone.abort());
    const subscribed = await withTimeout(watch.subscribed, SUBSCRIBE_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    let lastId = Number(session.lastId) || 0;
    let lastSent: string | undefined;
    let options: { watcher?: string } = { watcher: this.deps.watcher.id };
    while (subscribed && !gone.signal.aborted) {
      const record = await this.deps.store.records.read(executionId, options);
      options = {};
      const current = readable(record, skillId, executionId, principal);
      const id = changedAt(current);
      const json = JSON.stringify(current);
      // Two changes in one millisecond share an id: the second is sent all the same.
      if (id > lastId || (id === lastId && lastSent !== undefined && json !== lastSent)) {
        session.push(current, 'status', String(id));
        lastId = id;
        lastSent = json;
      }
      if (isTerminalStatus(current.status)) break;
      // Woken by each change; a long quiet stretch is the keep-alive's to bridge.
      if ((await watch.next(60_000, gone.signal)) === 'lost') break;
    }
    res.end();
  }
}

/** When the execution last changed, in epoch ms: the id of the event that shows it. */
function changedAt(execution: Execution): number {
  const { updated_at, completed_at } = execution.timestamps;
  return Date.parse(completed_at ?? updated_at);
}
