import {
  type Execution,
  type ExecutionFilter,
  type ExecutionListPage,
  type ExecutionListQuery,
  type Principal,
  SkillError,
  statusNotReplicated,
} from '@skillrun/core';
import {
  compactPosition,
  type ExecutionEngine,
  type ExecutionStore,
  type IndexPosition,
} from '@skillrun/core/data';
import { satisfies, validRange } from 'semver';
import type { Identities } from '../auth/identities';
import { isAdmin, principalOf } from '../auth/identity';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import type { RequestHeaders } from '../http/request-headers';
import { labelFilter } from './label-filter';

export interface ExecutionHistoryDeps {
  store: ExecutionStore;
  /** Whether a page may be told: its statuses past `accepted` once on the replicas (ACK_REPLICAS). */
  engine: Pick<ExecutionEngine, 'readSession'>;
  identities: Identities;
  /** EXECUTION_TTL_SECONDS: how far back a listing can see. */
  retentionSeconds: number;
}

/** How many executions one request looks at, at most, before it answers what it found. */
const SCAN_BUDGET = 1000;
const READ_CHUNK = 100;

/** What a scan of the history found, and where it stopped. */
export interface HistoryScan {
  /** Newest first, each as its record holds it (output included). */
  executions: Execution[];
  next_cursor: string | null;
}

/** A scan's filters and where it goes on from. */
export type HistoryQuery = ExecutionFilter & { cursor?: string };

/**
 * GET /executions: executions newest first, by skill, status, caller, schedule, batch, tags,
 * metadata and time, a page at a time. A caller lists its own (from its own index), an admin everyone's or one caller's.
 * Each page reads the hour lists of the index backwards (above one shard, every vshard's, merged
 * newest first: ExecutionIndex) and filters the records it names; a page that has looked at
 * SCAN_BUDGET executions answers with what it found and a cursor, so a rare filter over a long
 * history costs several small requests rather than one unbounded one. A page with statuses past
 * `accepted` is told once the replicas have them (ACK_REPLICAS), as GET status is.
 * POST /executions/cancel scans it the same way (find).
 */
export class ExecutionHistory {
  constructor(private readonly deps: ExecutionHistoryDeps) {}

  async list(query: ExecutionListQuery, headers: RequestHeaders): Promise<ExecutionListPage> {
    const principal = await this.principalOf(
      headers,
      'Listing executions needs credentials: it shows the caller its own',
    );
    const session = this.deps.engine.readSession();
    const { executions, next_cursor } = await this.find(query, principal, query.limit);
    // As GET status: what the replicas do not confirm in time is answered 503, to be asked again.
    if (!(await session.mayTell(...executions))) throw statusNotReplicated();
    return { executions: executions.map(({ output: _output, ...shown }) => shown), next_cursor };
  }

  /** Who asks: AUTH_REQUIRED, saying `why`, without credentials. */
  async principalOf(headers: RequestHeaders, why: string): Promise<Principal> {
    const principal = principalOf(await this.deps.identities.of(headers));
    if (!principal) throw new SkillError('AUTH_REQUIRED', why);
    return principal;
  }

  /**
   * Up to `limit` executions the filters find among those `principal` may list (its own; an
   * admin's: everyone's, or one caller's), newest first from the cursor on; `also` narrows them
   * further. One scan looks at SCAN_BUDGET executions at most, then answers where it stopped.
   */
  async find(
    query: HistoryQuery,
    principal: Principal,
    limit: number,
    also: (execution: Execution) => boolean = () => true,
  ): Promise<HistoryScan> {
    const admin = isAdmin(principal);
    if (!admin && query.caller_id !== undefined && query.caller_id !== principal.callerId) {
      throw new SkillError('ACCESS_DENIED', "Only an admin names another caller's executions (caller_id)");
    }
    const owner = admin ? query.caller_id : principal.callerId;
    const range = this.rangeOf(query);
    const matches = matcher(query, range);
    const found: Execution[] = [];
    let from = query.cursor === undefined ? undefined : this.positionOf(query.cursor);
    for (let looked = 0; looked < SCAN_BUDGET; looked += READ_CHUNK) {
      const { entries, next } = await this.deps.store.index.read(
        owner === undefined ? {} : { owner },
        range,
        from,
        READ_CHUNK,
      );
      const records = await Promise.all(entries.map(({ id }) => this.deps.store.records.get(id)));
      for (const [i, execution] of records.entries()) {
        if (!execution || !matches(execution) || !also(execution)) continue;
        found.push(execution);
        if (found.length === limit)
          return { executions: found, next_cursor: cursorOf(entries[i]?.after ?? null) };
      }
      if (next === null) return { executions: found, next_cursor: null };
      from = next;
    }
    return { executions: found, next_cursor: cursorOf(from ?? null) };
  }

  /**
   * Where a cursor goes on from; 400 when the index could not have given it out. A cursor given out
   * before the index had a place per tag (`{hour, before}`) is one tag's place: still good at one
   * shard, so that a listing paged across a rolling upgrade goes on.
   */
  private positionOf(cursor: string): IndexPosition {
    return decodeCursor(cursor, ({ p, hour, before }) =>
      this.deps.store.index.positionOf(p ?? [before === undefined ? [hour] : [hour, before]]),
    );
  }

  /** [since, until) in epoch ms; by default all that is retained, up to now. */
  private rangeOf(query: ExecutionFilter): { sinceMs: number; untilMs: number } {
    const now = Date.now();
    const sinceMs =
      query.since === undefined ? now - (this.deps.retentionSeconds + 7200) * 1000 : Date.parse(query.since);
    const untilMs = query.until === undefined ? now + 1 : Date.parse(query.until);
    if (sinceMs >= untilMs) {
      throw new SkillError('INVALID_INPUT', '`since` must be before `until`', {
        details: [{ path: '/since', message: 'must be before until' }],
      });
    }
    return { sinceMs, untilMs };
  }
}

/** Whether an execution passes the query's filters (the index gave its caller and its hour). */
function matcher(query: ExecutionFilter, { sinceMs, untilMs }: { sinceMs: number; untilMs: number }) {
  const statuses = query.status === undefined ? undefined : new Set(query.status.split(','));
  const versions = query.version === undefined ? undefined : validRange(query.version);
  if (versions === null) {
    throw new SkillError('INVALID_INPUT', '`version` is not a semver range', {
      details: [{ path: '/version', message: 'must be a semver range (1.2.0, ^1, >=1.0.0 <2)' }],
    });
  }
  const labelled = labelFilter(query);
  return (execution: Execution): boolean => {
    const created = Date.parse(execution.timestamps.created_at);
    return (
      created >= sinceMs &&
      created < untilMs &&
      (query.skill_id === undefined || execution.skill_id === query.skill_id) &&
      (query.batch_id === undefined || execution.batch_id === query.batch_id) &&
      (statuses === undefined || statuses.has(execution.status)) &&
      (versions === undefined || satisfies(execution.skill_version, versions)) &&
      (query.schedule_id === undefined || execution.schedule_id === query.schedule_id) &&
      labelled(execution)
    );
  };
}

/** A cursor: the index's position, compactly (every tag's place in its lists). */
function cursorOf(position: IndexPosition | null): string | null {
  return position === null ? null : encodeCursor({ p: compactPosition(position) });
}
