import { type Principal, SkillError, withTimeout } from '@skillrun/core';
import { createSession, type Session } from 'better-sse';
import type { Request, Response } from 'express';
import type { ExecutionIdentity } from '../auth/execution-identity';
import { eventIdOf, positionOf } from './event-id';
import type { ExecutionEvents } from './execution-events';
import type { ExecutionWatch } from './execution-watch';
import type { ExecutionWatcher } from './execution-watcher';
import type { StreamQuota } from './stream-quota';

export interface ExecutionStreamsDeps {
  identity: ExecutionIdentity;
  /** What the stream tells: the execution's changes and chunks, in order. */
  events: ExecutionEvents;
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
 * change (status, progress, steps) until it ends, when the stream closes; between them, `chunk`
 * events with the output the skill streams (`{"seq": n, "chunk": …}`, in order). The changes come
 * from Redis (announced in this gateway's watcher inbox), so any gateway serves any execution. Each
 * event's id says where the client is in both (event-id.ts): one that reconnects with Last-Event-ID
 * gets the current state only if it changed since (each status event is the whole status, so the
 * latest one is all a client missed) and the chunks after the last it saw, none twice. Streams
 * count against MAX_WAITERS with waiting reads, and against a per-caller bound.
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
    watch: ExecutionWatch,
    {
      skillId,
      executionId,
      principal,
    }: { skillId: string; executionId: string; principal: Principal | undefined },
    res: Response,
  ): Promise<void> {
    const gone = new AbortController();
    session.once('disconnected', () => gone.abort());
    const subscribed = await withTimeout(watch.subscribed, SUBSCRIBE_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    if (subscribed) {
      const position = positionOf(session.lastId);
      const events = this.deps.events.follow({
        skillId,
        executionId,
        principal,
        after: position,
        watch,
        watcherId: this.deps.watcher.id,
        signal: gone.signal,
      });
      for await (const event of events) {
        if (event.type === 'status') {
          position.changedAt = event.changedAt;
          session.push(event.execution, 'status', eventIdOf(position));
        } else {
          position.seq = event.seq;
          session.push({ seq: event.seq, chunk: event.chunk }, 'chunk', eventIdOf(position));
        }
      }
    }
    res.end();
  }
}
