import { randomBytes } from 'node:crypto';
import {
  type NewSchedule,
  type Principal,
  type Schedule,
  type ScheduleBackfill,
  type ScheduleBackfillAccepted,
  type ScheduleChange,
  type ScheduleListPage,
  type ScheduleListQuery,
  SkillError,
} from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import { assertRole } from '../auth/assert-role';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import { operatesAll } from '../auth/role-of';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import type { RequestHeaders } from '../http/request-headers';
import type { InvocationService } from '../invocations/invocation-service';
import { backfillDueTimes, backfillWindow } from './schedule-backfill';
import { credentialOf, type ScheduleCredentials } from './schedule-credential';
import { invocationOf, type ScheduleDefinition } from './schedule-invocation';
import type { FoundSchedule, ScheduleStore, StoredSchedule } from './schedule-store';
import type { ScheduleTimers } from './schedule-timers';
import { nextRuns, timingOf } from './schedule-timing';
import { runView, scheduleView } from './schedule-view';

export interface ScheduleDeskDeps {
  store: ScheduleStore;
  timers: ScheduleTimers;
  /** What vets a schedule's invocation as POST invoke would, when it is made or changed. */
  invocations: Pick<InvocationService, 'vet'>;
  credentials: ScheduleCredentials;
  /** Where its runs' executions are read. */
  executions: ExecutionStore;
  identities: Identities;
  /** MAX_SCHEDULES_PER_CALLER. */
  maxPerCaller: number;
  /** Where a new schedule's runs go, above one shard: the next vshard in turn. */
  engine: Pick<ExecutionEngine, 'placeSchedule'>;
}

const NEEDS_CREDENTIALS = 'Schedules need credentials: each run acts for the caller who made the schedule';
/** How many schedules one page of a listing looks at, at most, before it answers what it found. */
const SCAN_BUDGET = 1000;
const READ_CHUNK = 100;

/**
 * /schedules: a caller's schedules, made, listed, read with their latest runs, changed (paused,
 * resumed, retimed, given other inputs) and deleted. A schedule is vetted as an invocation of its
 * skill by the caller who makes it, and runs as that caller. Another caller's schedule is the same
 * 404 as one that does not exist; an admin reaches everyone's.
 */
export class ScheduleDesk {
  constructor(private readonly deps: ScheduleDeskDeps) {}

  async create(request: NewSchedule, headers: RequestHeaders, address: string): Promise<Schedule> {
    const timing = timingOf(request);
    const known = principalOf(await this.deps.identities.of(headers));
    const caller = request.caller ?? (known ? { id: known.callerId, type: 'service' as const } : undefined);
    if (!caller) throw new SkillError('AUTH_REQUIRED', NEEDS_CREDENTIALS);
    const definition: ScheduleDefinition = {
      skill_id: request.skill_id,
      ...(request.version === undefined ? {} : { version: request.version }),
      inputs: request.inputs,
      ...(request.context === undefined ? {} : { context: request.context }),
      caller,
    };
    // As POST invoke would check it now: the credentials (wherever the skill reads them), the
    // version, the caller's access and the inputs.
    const principal = await this.deps.invocations.vet({ ...invocationOf(definition), headers, address });
    if (!principal) throw new SkillError('AUTH_REQUIRED', NEEDS_CREDENTIALS);
    const now = Date.now();
    const schedule: StoredSchedule = {
      id: `sch_${randomBytes(16).toString('base64url')}`,
      owner: principal.callerId,
      credential: credentialOf(principal),
      ...definition,
      ...timing,
      overlap: request.overlap ?? 'allow',
      paused: request.paused ?? false,
      created_at: now,
      updated_at: now,
    };
    const { maxPerCaller } = this.deps;
    if (!(await this.deps.store.create(schedule, maxPerCaller, this.deps.engine.placeSchedule()))) {
      throw new SkillError(
        'SCHEDULE_LIMIT_EXCEEDED',
        `The caller has ${maxPerCaller} schedules already (MAX_SCHEDULES_PER_CALLER): delete one first`,
        { details: { limit: maxPerCaller } },
      );
    }
    try {
      if (!schedule.paused) await this.deps.timers.set(schedule.id, timing);
    } catch (error) {
      // Not timed, it is not made: it would be a schedule that never runs.
      await this.deps.store.remove(schedule).catch(() => {});
      throw error;
    }
    return this.viewOf(schedule);
  }

  async list(query: ScheduleListQuery, headers: RequestHeaders): Promise<ScheduleListPage> {
    const principal = await this.caller(headers);
    const all = operatesAll(principal);
    if (!all && query.caller_id !== undefined && query.caller_id !== principal.callerId) {
      assertRole(principal, 'operator', "Listing another caller's schedules");
    }
    const owner = all ? query.caller_id : principal.callerId;
    const found: StoredSchedule[] = [];
    let from = query.cursor === undefined ? undefined : positionOf(query.cursor);
    for (let looked = 0; looked < SCAN_BUDGET; looked += READ_CHUNK) {
      const { entries, next } = await this.deps.store.list(owner, from, READ_CHUNK);
      for (const { schedule, position } of entries) {
        if (query.skill_id !== undefined && schedule.skill_id !== query.skill_id) continue;
        found.push(schedule);
        if (found.length === query.limit) return this.pageOf(found, position);
      }
      if (next === null) return this.pageOf(found, null);
      from = next;
    }
    return this.pageOf(found, from ?? null);
  }

  /** One schedule, with its latest runs (each launched one with its execution's status now). */
  async get(id: string, headers: RequestHeaders): Promise<Schedule> {
    const { schedule } = await this.owned(id, headers);
    const runs = await this.deps.store.runs(id);
    const statuses = await Promise.all(
      runs.map(async (run) =>
        run.outcome === 'launched' && run.execution_id !== undefined
          ? (await this.deps.executions.records.get(run.execution_id))?.status
          : undefined,
      ),
    );
    return this.viewOf(
      schedule,
      runs.map((run, i) => runView(run, statuses[i])),
    );
  }

  /**
   * Changes a schedule: a new timing, definition, overlap, or paused. A changed definition is vetted
   * again, as the caller the schedule runs as.
   */
  async update(
    id: string,
    change: ScheduleChange,
    headers: RequestHeaders,
    address: string,
  ): Promise<Schedule> {
    const { schedule: before } = await this.owned(id, headers);
    const retimed =
      change.cron !== undefined || change.every_ms !== undefined || change.timezone !== undefined;
    const timing = timingOf(retimed ? timingFieldsOf(before, change) : before);
    const context = change.context ?? before.context;
    const definition: ScheduleDefinition = {
      skill_id: before.skill_id,
      ...versionOf(before, change),
      inputs: change.inputs ?? before.inputs,
      ...(context === undefined ? {} : { context }),
      caller: before.caller,
    };
    if (change.version !== undefined || change.inputs !== undefined || change.context !== undefined) {
      const identity = await this.deps.credentials.identityOf(before.credential);
      await this.deps.invocations.vet({ ...invocationOf(definition), headers: {}, address, identity });
    }
    const {
      cron: _cron,
      every_ms: _every,
      timezone: _zone,
      version: _version,
      context: _context,
      ...kept
    } = before;
    const after: StoredSchedule = {
      ...kept,
      ...definition,
      ...timing,
      overlap: change.overlap ?? before.overlap,
      paused: change.paused ?? before.paused,
      updated_at: Date.now(),
    };
    if (!(await this.deps.store.update(after))) throw notFound(id);
    if (after.paused) await this.deps.timers.clear(id);
    else if (before.paused || retimed) await this.deps.timers.set(id, timing);
    return this.viewOf(after);
  }

  /**
   * Runs the due times of a past window that have no run recorded (POST /schedules/{id}/backfill):
   * each is queued as its own due time's job, and the runner runs it as it would have then.
   */
  async backfill(
    id: string,
    request: ScheduleBackfill,
    headers: RequestHeaders,
  ): Promise<ScheduleBackfillAccepted> {
    const { schedule } = await this.owned(id, headers);
    const { from, to } = backfillWindow(request, Date.now());
    // An interval's grid: the due time set, or while paused (none set) when it was made.
    const anchor = (await this.deps.timers.next(id)) ?? schedule.created_at;
    const due = backfillDueTimes(timingOf(schedule), anchor, from, to);
    const ran = await Promise.all(due.map((at) => this.deps.store.hasRun(id, at)));
    const queued = due.filter((_, i) => !ran[i]);
    await this.deps.timers.backfill(id, queued);
    const iso = (at: number) => new Date(at).toISOString();
    return {
      schedule_id: id,
      from: iso(from),
      to: iso(to),
      queued: queued.map(iso),
      already_run: due.filter((_, i) => ran[i]).map(iso),
    };
  }

  async remove(id: string, headers: RequestHeaders): Promise<void> {
    const { schedule } = await this.owned(id, headers);
    // Untimed first: no due time comes of it while it goes.
    await this.deps.timers.clear(id);
    await this.deps.store.remove(schedule);
  }

  private async viewOf(schedule: StoredSchedule, lastRuns?: Schedule['last_runs']): Promise<Schedule> {
    const first = schedule.paused ? undefined : await this.deps.timers.next(schedule.id);
    const runs = first === undefined ? [] : nextRuns(timingOf(schedule), first);
    return scheduleView(schedule, runs, lastRuns);
  }

  private async pageOf(schedules: StoredSchedule[], next: string | null): Promise<ScheduleListPage> {
    return {
      schedules: await Promise.all(schedules.map((schedule) => this.viewOf(schedule))),
      next_cursor: next === null ? null : encodeCursor({ after: next }),
    };
  }

  private async caller(headers: RequestHeaders): Promise<Principal> {
    const principal = principalOf(await this.deps.identities.of(headers));
    if (!principal) throw new SkillError('AUTH_REQUIRED', NEEDS_CREDENTIALS);
    return principal;
  }

  /** The schedule, if the request's caller made it (or is an operator or an admin). */
  private async owned(id: string, headers: RequestHeaders): Promise<FoundSchedule> {
    const [found, principal] = await Promise.all([this.deps.store.get(id), this.caller(headers)]);
    if (found && (operatesAll(principal) || found.schedule.owner === principal.callerId)) return found;
    throw notFound(id);
  }
}

/**
 * The timing fields a change makes: a cron or an interval replaces the other; a cron keeps the time
 * zone it was read in unless the change names one.
 */
function timingFieldsOf(
  before: StoredSchedule,
  change: ScheduleChange,
): { cron?: string; every_ms?: number; timezone?: string } {
  if (change.cron === undefined && change.every_ms === undefined) {
    return { cron: before.cron, every_ms: before.every_ms, timezone: change.timezone };
  }
  const zone =
    change.timezone ?? (change.cron !== undefined && before.cron !== undefined ? before.timezone : undefined);
  return { cron: change.cron, every_ms: change.every_ms, timezone: zone };
}

/** The range a changed schedule runs: the change's, none again for null, else the one it had. */
function versionOf(before: StoredSchedule, change: ScheduleChange): { version?: string } {
  const version = change.version === undefined ? before.version : change.version;
  return version === null || version === undefined ? {} : { version };
}

function notFound(id: string): SkillError {
  return new SkillError('SCHEDULE_NOT_FOUND', `No schedule "${id}"`);
}

function positionOf(cursor: string): string {
  return decodeCursor(cursor, ({ after }) =>
    typeof after === 'string' && after.length > 0 ? after : undefined,
  );
}
