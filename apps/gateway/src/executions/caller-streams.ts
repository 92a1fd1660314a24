import { type Execution, type Principal, SkillError } from '@skillrun/core';
import type { ExecutionStore, FollowedCallers } from '@skillrun/core/data';
import { createSession, type Session } from 'better-sse';
import type { Request, Response } from 'express';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import { asSeenBy } from '../auth/payload-visibility';
import { overseesAll } from '../auth/role-of';
import type { NotifiedCallers } from '../invocations/notified-callers';
import { advance, type ChangeFeed, type FeedEvent } from './change-feed';
import type { StreamQuota } from './stream-quota';

export interface CallerStreamsDeps {
  identities: Identities;
  store: ExecutionStore;
  feed: ChangeFeed;
  followers: FollowedCallers;
  notified: NotifiedCallers;
  quota: StreamQuota;
  /** A comment this often keeps proxies from closing a quiet stream. */
  heartbeatMs: number;
  /** EXECUTION_TTL_SECONDS: how far back the snapshot looks for executions still running. */
  retentionSeconds: number;
}

/** A followed caller stays followed this long after its stream's gateway last renewed it. */
const FOLLOW_MS = 30_000;
const RENEW_MS = 10_000;
/** The snapshot looks at the caller's newest executions, this many at most. */
const SNAPSHOT_LOOKS = 1000;
/**
 * Other gateways learn that the caller is followed within NotifiedCallers' refresh (2 s): the
 * executions they accepted meanwhile are looked for once this long after the start.
 */
const SECOND_LOOK_MS = 2500;

/**
 * GET /executions/events: every change of a caller's executions as server-sent events, from now on
 * and for as long as the client stays: first a snapshot (an event for each execution of the
 * caller's that has not ended), then one at every change (progress, a retry, a composite's step,
 * the end), from any gateway, whichever process made it. While a stream is open, its caller is
 * followed: the records of its executions, new ones and those the snapshot found running, have
 * their changes appended to the notifications streams, which this gateway reads. Each event's id is
 * the feed's position after it (at one shard, its entry in the one stream; the snapshot's, the
 * position it was taken at): reconnecting with Last-Event-ID sends what happened since, without a
 * gap, as long as the streams hold it (else a snapshot again).
 */
/** A stream's session knows who reads it, to show each execution as that reader may see it. */
type ReaderSession = Session<{ reader: Principal }>;

export class CallerStreams {
  constructor(private readonly deps: CallerStreamsDeps) {}

  async stream(req: Request, res: Response, callerQuery: string | undefined): Promise<void> {
    const principal = principalOf(await this.deps.identities.of(req.headers));
    if (!principal)
      throw new SkillError(
        'AUTH_REQUIRED',
        "An event stream of executions needs credentials: it shows the caller's own",
      );
    const owner = ownerOf(principal, callerQuery);
    const release = this.deps.quota.take(principal.callerId, (seconds) =>
      res.setHeader('Retry-After', seconds),
    );
    const pending: FeedEvent[] = [];
    let wake: (() => void) | undefined;
    let unsubscribe: (() => void) | undefined;
    const renewal = setInterval(() => void this.follow(owner).catch(() => {}), RENEW_MS);
    try {
      await this.follow(owner);
      unsubscribe = await this.deps.feed.subscribe(owner, (event) => {
        pending.push(event);
        wake?.();
      });
      const session = await createSession(req, res, {
        keepAlive: this.deps.heartbeatMs,
        retry: 1000,
        headers: { 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
        state: { reader: principal },
      });
      const gone = new Promise<void>((resolve) => session.once('disconnected', () => resolve()));
      const started = await this.start(session, owner, session.lastId);
      let last = started.last;
      let secondLook = false;
      const timer = setTimeout(() => {
        secondLook = true;
        wake?.();
      }, SECOND_LOOK_MS);
      void gone.then(() => clearTimeout(timer));
      for (;;) {
        if (secondLook) {
          secondLook = false;
          for (const id of await this.newSince(owner, started.seen)) await this.send(session, id, last);
        }
        while (pending.length > 0) {
          const event = pending.shift() as FeedEvent;
          const next = advance(last, event);
          if (next === undefined) continue;
          await this.send(session, event.executionId, next);
          last = next;
        }
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        if ((await Promise.race([woken.then(() => 'event'), gone.then(() => 'gone')])) === 'gone') break;
      }
    } finally {
      clearInterval(renewal);
      unsubscribe?.();
      release();
    }
  }

  /** Marks the caller followed (its new executions' changes are notifications) on every gateway. */
  private async follow(owner: string): Promise<void> {
    await this.deps.followers.follow(owner, Date.now() + FOLLOW_MS);
    await this.deps.notified.changed();
  }

  /**
   * What a stream starts with: what happened since Last-Event-ID when the notifications stream still
   * holds all of it, else a snapshot. Answers the id it is as of.
   */
  private async start(
    session: ReaderSession,
    owner: string,
    lastEventId: string,
  ): Promise<{ last: string; seen: Set<string> }> {
    const { feed } = this.deps;
    const seen = new Set(await this.newest(owner));
    if (feed.isPosition(lastEventId)) {
      const { events, complete } = await feed.since(owner, lastEventId);
      if (complete) {
        await this.followAll([...seen]);
        return { last: await this.sendAll(session, events, lastEventId), seen };
      }
    }
    const asOf = await feed.top();
    for (const id of await this.followAll([...seen])) await this.send(session, id, asOf);
    // What was appended between the top read and the subscription's start is in the streams.
    const { events } = await feed.since(owner, asOf);
    return { last: await this.sendAll(session, events, asOf), seen };
  }

  /** Sends each event, its id the position after it from `position` on; answers the last position. */
  private async sendAll(session: ReaderSession, events: FeedEvent[], position: string): Promise<string> {
    let last = position;
    for (const event of events) {
      last = advance(last, event) ?? last;
      await this.send(session, event.executionId, last);
    }
    return last;
  }

  /** The owner's newest executions (ids), newest first. */
  private async newest(owner: string): Promise<string[]> {
    const now = Date.now();
    const { entries } = await this.deps.store.index.read(
      { owner },
      { sinceMs: now - (this.deps.retentionSeconds + 7200) * 1000, untilMs: now + 1 },
      undefined,
      SNAPSHOT_LOOKS,
    );
    return entries.map(({ id }) => id);
  }

  /** Follows each execution that has not ended; answers those. */
  private async followAll(ids: string[]): Promise<string[]> {
    const followed = await Promise.all(ids.map((id) => this.deps.store.watchers.follow(id)));
    return ids.filter((_id, i) => followed[i]);
  }

  /**
   * The executions accepted since the start that the snapshot did not see (through a gateway that did
   * not know yet that the caller was followed), each followed if it has not ended.
   */
  private async newSince(owner: string, seen: Set<string>): Promise<string[]> {
    const fresh = (await this.newest(owner)).filter((id) => !seen.has(id));
    await this.followAll(fresh);
    return fresh;
  }

  private async send(session: ReaderSession, executionId: string, eventId: string): Promise<void> {
    const execution: Execution | null = await this.deps.store.records.get(executionId);
    if (!execution) return;
    session.push(asSeenBy(session.state.reader, execution), 'status', eventId);
  }
}

/** Whose executions the stream shows: the caller's own, or (an admin's) the caller it names. */
function ownerOf(principal: Principal, callerQuery: string | undefined): string {
  if (callerQuery === undefined || callerQuery === principal.callerId) return principal.callerId;
  if (!overseesAll(principal))
    throw new SkillError(
      'ACCESS_DENIED',
      "Only a role (viewer, operator, admin) follows another caller's executions",
    );
  return callerQuery;
}
