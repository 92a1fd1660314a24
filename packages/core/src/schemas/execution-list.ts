import { type Static, Type } from '@sinclair/typebox';
import { Execution } from './execution';

/**
 * The filters of the execution history: what GET /executions lists and POST /executions/cancel
 * cancels, one definition for both.
 */
export const ExecutionFilterFields = {
  skill_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this skill.' })),
  version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Only executions whose version (the one that runs or ran) is in this semver range: `1.2.0`, `^1`, `>=1.0.0 <2`.',
    }),
  ),
  status: Type.Optional(
    Type.String({
      pattern:
        '^(accepted|running|completed|failed|timeout|canceled)(,(accepted|running|completed|failed|timeout|canceled))*$',
      description: 'Only these statuses, comma-separated (e.g. `failed,timeout`).',
    }),
  ),
  caller_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Only this caller's executions (the authenticated owner): an admin's filter; anyone else sees only their own.",
    }),
  ),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Created at or after this instant.' }),
  ),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Created before this instant.' })),
  schedule_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Only the runs of this schedule (each run is an execution naming its schedule_id).',
    }),
  ),
  batch_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "Only this batch's items." }),
  ),
};
/** Where a scan of the history goes on: the previous page's next_cursor. */
export const HistoryCursor = Type.Optional(
  Type.String({
    maxLength: 200,
    description: 'next_cursor of the previous page (send the same filters with it).',
  }),
);

/** GET /executions query: filters, a page size and the previous page's cursor. */
export const ExecutionListQuery = Type.Object(
  {
    ...ExecutionFilterFields,
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: HistoryCursor,
  },
  { additionalProperties: false },
);
export type ExecutionListQuery = Static<typeof ExecutionListQuery>;

/** The history's filters alone, as both requests carry them. */
export type ExecutionFilter = Pick<ExecutionListQuery, keyof typeof ExecutionFilterFields>;

/** One page of GET /executions, newest first; each execution as GET status shows it, without its output. */
export const ExecutionListPage = Type.Object({
  executions: Type.Array(Type.Omit(Execution, ['output'])),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'null once nothing older is left. A page may hold fewer than `limit` and still have one.',
  }),
});
export type ExecutionListPage = Static<typeof ExecutionListPage>;

/** GET /executions/events query: whose executions (an admin may name a caller). */
export const ExecutionEventsQuery = Type.Object(
  {
    caller_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Whose executions to follow: an admin's choice; anyone else follows their own.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExecutionEventsQuery = Static<typeof ExecutionEventsQuery>;
