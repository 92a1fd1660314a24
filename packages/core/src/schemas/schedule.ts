import { type Static, Type } from '@sinclair/typebox';
import { ErrorBody } from './error-body';
import { ExecutionStatus } from './execution';
import { CallerType, InvocationContext } from './invocation-request';
import { StringEnum } from './json-schema';
import { VersionRange } from './semver';

/** The shortest interval a schedule may run at: a second, cron's finest step too. */
export const SHORTEST_EVERY_MS = 1000;

export const ScheduleId = Type.String({ pattern: '^sch_[A-Za-z0-9_-]{22}$' });

const Cron = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description:
    'A cron pattern: 5 fields (minute first) or 6 (seconds first, e.g. `*/10 * * * * *`), or a nickname such as `@daily`; read in `timezone`.',
});

const EveryMs = Type.Integer({
  minimum: SHORTEST_EVERY_MS,
  maximum: 31_536_000_000,
  description: 'Runs every this many milliseconds (at least 1000), the first at once.',
});

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'An IANA time zone (`Europe/Paris`) the cron pattern is read in; UTC when absent. Cron only.',
});

export const ScheduleOverlap = StringEnum(['allow', 'skip'], {
  description:
    '`allow` (default): every due time starts an execution; `skip`: a due time is skipped (recorded as such) while the previous run has not ended.',
});
export type ScheduleOverlap = Static<typeof ScheduleOverlap>;

const ScheduleCaller = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 256 }),
    type: CallerType,
  },
  {
    additionalProperties: false,
    description: "Who each run invokes as: the authenticated caller's id (the default), as in an invocation.",
  },
);

const Inputs = Type.Object({}, { additionalProperties: true });

/**
 * Each run's context: an invocation's, but for delay_ms, run_at and debounce (refused, 400), since
 * a schedule's timing is its cron or every_ms and a run starts at its due time, as an execution of
 * its own (never one that another call's debounce key has open).
 */
export const ScheduleContext = Type.Omit(InvocationContext, ['delay_ms', 'run_at', 'debounce'], {
  description:
    "Each run's invocation context (trace_id, priority, timeout_ms, queue_timeout_ms, concurrency_key, tags, metadata). Not delay_ms, run_at nor debounce: a schedule's timing is its cron or every_ms, and each run is an execution of its own (400).",
});

/** POST /schedules: a skill to invoke at every due time of a cron pattern or an interval. */
export const NewSchedule = Type.Object(
  {
    skill_id: Type.String({ minLength: 1, maxLength: 256 }),
    version: Type.Optional({
      ...VersionRange,
      description:
        "Which version each run invokes: a semver range (default: the latest), resolved at each run; the inputs are validated against that version's schema then.",
    }),
    cron: Type.Optional(Cron),
    every_ms: Type.Optional(EveryMs),
    timezone: Type.Optional(TimeZone),
    inputs: Inputs,
    context: Type.Optional(ScheduleContext),
    caller: Type.Optional(ScheduleCaller),
    overlap: Type.Optional(ScheduleOverlap),
    paused: Type.Optional(Type.Boolean({ description: 'Made paused: nothing runs until it is resumed.' })),
  },
  { additionalProperties: false },
);
export type NewSchedule = Static<typeof NewSchedule>;

/**
 * PATCH /schedules/{id}: what to change. `paused` pauses or resumes; `cron` or `every_ms` replaces
 * the timing (the other one goes); a `version` of null follows the latest again.
 */
export const ScheduleChange = Type.Object(
  {
    version: Type.Optional(Type.Union([VersionRange, Type.Null()])),
    cron: Type.Optional(Cron),
    every_ms: Type.Optional(EveryMs),
    timezone: Type.Optional(TimeZone),
    inputs: Type.Optional(Inputs),
    context: Type.Optional(ScheduleContext),
    overlap: Type.Optional(ScheduleOverlap),
    paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ScheduleChange = Static<typeof ScheduleChange>;

export const ScheduleRunOutcome = StringEnum(['launched', 'skipped', 'failed'], {
  description:
    "`launched`: the due time started an execution; `skipped`: it did not, as the previous run had not ended (overlap `skip`); `failed`: it could not start one (`error` says why: the caller's credentials revoked, inputs the version resolved then refuses, a limit…).",
});
export type ScheduleRunOutcome = Static<typeof ScheduleRunOutcome>;

/** What one due time of a schedule came to. */
export const ScheduleRun = Type.Object({
  due_at: Type.String({ format: 'date-time' }),
  outcome: ScheduleRunOutcome,
  execution_id: Type.Optional(
    Type.String({
      description: 'launched: the execution it started; skipped: the previous run, still going then.',
    }),
  ),
  status: Type.Optional({
    ...ExecutionStatus,
    description: "launched: that execution's status now (absent once its record has expired).",
  }),
  error: Type.Optional(ErrorBody),
  recorded_at: Type.String({ format: 'date-time' }),
});
export type ScheduleRun = Static<typeof ScheduleRun>;

/** A schedule as GET answers it. */
export const Schedule = Type.Object({
  schedule_id: ScheduleId,
  skill_id: Type.String(),
  version: Type.Optional(Type.String()),
  cron: Type.Optional(Type.String()),
  every_ms: Type.Optional(Type.Integer()),
  timezone: Type.Optional(Type.String({ description: 'Cron only: the time zone it is read in.' })),
  inputs: Inputs,
  context: Type.Optional(ScheduleContext),
  caller: Type.Object({ id: Type.String(), type: Type.String() }),
  overlap: ScheduleOverlap,
  paused: Type.Boolean(),
  next_runs: Type.Array(Type.String({ format: 'date-time' }), {
    maxItems: 5,
    description: 'The next due times, at most 5 (none while paused).',
  }),
  last_runs: Type.Optional(
    Type.Array(ScheduleRun, { description: 'GET /schedules/{id}: the latest runs, newest first (20 kept).' }),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Schedule = Static<typeof Schedule>;

/** GET /schedules query. */
export const ScheduleListQuery = Type.Object(
  {
    skill_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Only this skill.' })),
    caller_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Only this caller's schedules: an admin's filter; anyone else lists only their own.",
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'next_cursor of the previous page (send the same filters with it).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ScheduleListQuery = Static<typeof ScheduleListQuery>;

/** One page of GET /schedules, oldest first. */
export const ScheduleListPage = Type.Object({
  schedules: Type.Array(Schedule),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'null once nothing more is left. A page may hold fewer than `limit` and still have one.',
  }),
});
export type ScheduleListPage = Static<typeof ScheduleListPage>;

/** POST /schedules/{id}/backfill: a past window whose due times are to run now. */
export const ScheduleBackfill = Type.Object(
  {
    from: Type.String({
      format: 'date-time',
      description: "The window's start (included), RFC 3339 with its offset.",
    }),
    to: Type.String({
      format: 'date-time',
      description: "Its end (excluded), not after now: due times ahead are the schedule's own.",
    }),
  },
  { additionalProperties: false },
);
export type ScheduleBackfill = Static<typeof ScheduleBackfill>;

/** POST /schedules/{id}/backfill's answer: which due times of the window run, and which had run. */
export const ScheduleBackfillAccepted = Type.Object({
  schedule_id: ScheduleId,
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  queued: Type.Array(Type.String({ format: 'date-time' }), {
    description:
      "The window's due times that run now, oldest first, each once, as its own due time would have (the schedule's overlap applies); their runs show in GET /schedules/{id}.",
  }),
  already_run: Type.Array(Type.String({ format: 'date-time' }), {
    description: 'Due times of the window that had a run recorded: not run again.',
  }),
});
export type ScheduleBackfillAccepted = Static<typeof ScheduleBackfillAccepted>;
