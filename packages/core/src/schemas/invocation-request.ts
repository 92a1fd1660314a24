import { type Static, Type } from '@sinclair/typebox';
import { Budget } from './budget';
import { ExecutionMetadata, ExecutionTags } from './execution-tags';
import { StringEnum } from './json-schema';
import { VersionRange } from './semver';
import { WebhookTarget } from './webhook';

export const Priority = StringEnum(['low', 'normal', 'high']);
export type Priority = Static<typeof Priority>;

export const CallerType = StringEnum(['ifay', 'service', 'user']);

export const Caller = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256 }),
  type: CallerType,
  /** Never stored or queued: read for authentication, then dropped. */
  credentials: Type.Optional(
    Type.Object(
      { api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })) },
      { additionalProperties: true },
    ),
  ),
});
export type Caller = Static<typeof Caller>;

/**
 * Ours: invocations with the same `key` (of one caller, for one skill) within `delay_ms` of each
 * other collapse into one execution: `trailing` runs it once the calls stop, with the last call's
 * inputs; `leading` runs the first at once and drops the others.
 */
export const Debounce = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 256 }),
    delay_ms: Type.Integer({ minimum: 1, maximum: 86_400_000 }),
    mode: Type.Optional(StringEnum(['trailing', 'leading'])),
    max_delay_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400_000,
        description:
          'trailing: the execution starts at most this long after the call that opened its key, however often the key is hit; leading: the key drops calls for at most this long after the call that ran (below delay_ms: a fixed window, a throttle).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Debounce = Static<typeof Debounce>;
export type DebounceMode = NonNullable<Debounce['mode']>;

/**
 * Spec 001's context and our fields. Closed: an unknown field is refused (400), so that a typo such
 * as `delay: 5000` is not silently ignored.
 */
export const InvocationContext = Type.Object(
  {
    trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' })),
    priority: Type.Optional(Priority),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
    /**
     * Ours: how long the caller is willing to wait for the execution to start, from when it is due;
     * past it, it ends as `timeout` without running (the skill's `queue_timeout` when absent).
     */
    queue_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800_000 })),
    delay_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Ours: start the execution this many ms after it is accepted (at most the gateway's MAX_DELAY_MS); not with run_at.",
      }),
    ),
    run_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Ours: start the execution at this time (RFC 3339, with its offset; at once if it has passed, at most MAX_DELAY_MS ahead); not with delay_ms.',
      }),
    ),
    /** Ours: what the skill's `concurrency.per_key` counts this execution under. */
    concurrency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    debounce: Type.Optional(Debounce),
    tags: Type.Optional(ExecutionTags),
    metadata: Type.Optional(ExecutionMetadata),
    budget: Type.Optional(Budget),
  },
  {
    additionalProperties: false,
    description: 'How to run the execution. An unknown field is refused (400): a typo is not ignored.',
  },
);

/** The body of POST {endpoint.url}, spec 001 section 6.3. */
export const InvocationRequest = Type.Object({
  caller: Caller,
  skill_id: Type.String({ minLength: 1, maxLength: 256 }),
  version: Type.Optional({
    ...VersionRange,
    description: 'Which version to run: a semver range (default: latest).',
  }),
  inputs: Type.Object({}, { additionalProperties: true }),
  context: Type.Optional(InvocationContext),
  /** Ours: a URL to POST the execution's status to when it ends (or at every change), signed. */
  webhook: Type.Optional(WebhookTarget),
});
export type InvocationRequest = Static<typeof InvocationRequest>;
