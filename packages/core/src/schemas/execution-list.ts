import { type Static, Type } from '@sinclair/typebox';
import { Execution } from './execution';
import { MAX_TAGS } from './execution-tags';
import { StringEnum } from './json-schema';

/** A tag of the filter, as ExecutionTag allows. */
const TAG = '[A-Za-z0-9_.:/-]{1,64}';

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
  tag: Type.Optional(
    Type.String({
      pattern: `^${TAG}(,${TAG}){0,${MAX_TAGS - 1}}$`,
      description: `Only executions with these tags (context.tags), comma-separated (in a query, the parameter may also repeat): up to ${MAX_TAGS}, each as a tag is written. Every one of them, or any with tag_match=any.`,
    }),
  ),
  tag_match: Type.Optional(
    StringEnum(['all', 'any'], {
      default: 'all',
      description: '`all` (the default): an execution has every tag of `tag`; `any`: at least one.',
    }),
  ),
};

/**
 * `metadata.<key>=<value>` (ours, Trigger.dev's and Temporal's search by attribute): only executions
 * whose context.metadata has the top-level key `<key>` (everything after `metadata.`) with this
 * value: a string as it is, any other JSON value as JSON (`metadata.count=3`, `metadata.vip=true`).
 * Several must all hold.
 */
export const MetadataFilterProperties = {
  '^metadata\\..+$': Type.String({ maxLength: 256 }),
};
export type MetadataFilter = { [key: `metadata.${string}`]: string };
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
  { additionalProperties: false, patternProperties: MetadataFilterProperties },
);
export type ExecutionListQuery = Static<typeof ExecutionListQuery> & MetadataFilter;

/** The history's filters alone, as both requests carry them. */
export type ExecutionFilter = Pick<ExecutionListQuery, keyof typeof ExecutionFilterFields> & MetadataFilter;

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
