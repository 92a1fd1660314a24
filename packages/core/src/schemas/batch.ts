import { type Static, Type } from '@sinclair/typebox';
import { ErrorBody } from './error-body';
import { ExecutionStatus } from './execution';
import { Caller, InvocationContext } from './invocation-request';
import { VersionRange } from './semver';

/** The most items one POST /batches may carry. */
export const MAX_BATCH_ITEMS = 1000;

/** What an Idempotency-Key may be (idempotency-key-header.ts): visible ASCII, at most 255 characters. */
const IdempotencyKey = Type.String({
  pattern: '^[\\x21-\\x7e]{1,255}$',
  description:
    "The item's idempotency key (as the Idempotency-Key of a POST invoke): the same item sent again with it gets the execution it started, not a new one.",
});

/**
 * An item's context: an invocation's but for debounce (refused, 400, in the item's place). The
 * items are launched together in one write; a debounced call may instead join the execution its
 * key has open, a launch of its own (and two items of one batch with the same key would join each
 * other).
 */
const BatchItemContext = Type.Omit(InvocationContext, ['debounce'], {
  description:
    "The item's invocation context, as POST invoke's but for debounce (400): a batch's items are launched together, each as an execution of its own.",
});

/** One item of a batch: what a POST invoke's body says, less the caller (the batch's). */
export const BatchItem = Type.Object(
  {
    skill_id: Type.String({ minLength: 1, maxLength: 256 }),
    version: Type.Optional({
      ...VersionRange,
      description: 'Which version to run: a semver range (default: latest).',
    }),
    inputs: Type.Object({}, { additionalProperties: true }),
    context: Type.Optional(BatchItemContext),
    idempotency_key: Type.Optional(IdempotencyKey),
  },
  { additionalProperties: false },
);
export type BatchItem = Static<typeof BatchItem>;

const ITEMS_BOUNDS = { minItems: 1, maxItems: MAX_BATCH_ITEMS };

/** The body of POST /batches (ours): many invocations by one caller, each as POST invoke would take it. */
export const BatchRequest = Type.Object(
  {
    caller: Caller,
    items: Type.Array(BatchItem, {
      ...ITEMS_BOUNDS,
      description: `1 to ${MAX_BATCH_ITEMS} invocations, each validated and authorized on its own: an invalid one gets its error in its place in the answer, the others run.`,
    }),
  },
  { additionalProperties: false },
);
export type BatchRequest = Static<typeof BatchRequest>;

/**
 * POST /batches' body as the request is refused as a whole for: the caller and the bounds of the
 * items. Each item is checked apart (BatchItem), its errors answered in its place.
 */
export const BatchEnvelope = Type.Object(
  { caller: Caller, items: Type.Array(Type.Unknown(), ITEMS_BOUNDS) },
  { additionalProperties: false },
);

/** The place of one item in POST /batches' answer: the execution it started, or why it did not. */
export const BatchSlot = Type.Union([
  Type.Object({ execution_id: Type.String() }, { additionalProperties: false }),
  Type.Object({ error: ErrorBody }, { additionalProperties: false }),
]);
export type BatchSlot = Static<typeof BatchSlot>;

/** The 202 answer to POST /batches: one slot per item, in the items' order. */
export const BatchAccepted = Type.Object({
  batch_id: Type.String({ format: 'uuid' }),
  executions: Type.Array(BatchSlot),
});
export type BatchAccepted = Static<typeof BatchAccepted>;

/** How many of a batch's executions are in each status. */
export const BatchCounts = Type.Object({
  awaiting_approval: Type.Integer({ minimum: 0 }),
  accepted: Type.Integer({ minimum: 0 }),
  running: Type.Integer({ minimum: 0 }),
  completed: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  timeout: Type.Integer({ minimum: 0 }),
  canceled: Type.Integer({ minimum: 0 }),
});
export type BatchCounts = Static<typeof BatchCounts>;

/** GET /batches/{id}: where a batch's executions stand. */
export const BatchView = Type.Object({
  batch_id: Type.String({ format: 'uuid' }),
  caller: Type.Object({ id: Type.String(), type: Type.String() }),
  created_at: Type.String({ format: 'date-time' }),
  items: Type.Integer({ minimum: 1, description: 'How many items the batch had (those refused included).' }),
  ended: Type.Boolean({ description: 'Whether every execution of the batch has ended.' }),
  counts: BatchCounts,
  executions: Type.Array(
    Type.Object({ execution_id: Type.String(), skill_id: Type.String(), status: ExecutionStatus }),
    {
      description:
        "The batch's executions in the order of its items (items refused at POST have none), with their statuses.",
    },
  ),
});
export type BatchView = Static<typeof BatchView>;
