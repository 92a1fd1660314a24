import { type Static, Type } from '@sinclair/typebox';
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

export const InvocationContext = Type.Object({
  trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' })),
  priority: Type.Optional(Priority),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  /**
   * Ours: how long the caller is willing to wait for the execution to start; past it, it ends as
   * `timeout` without running (the skill's `queue_timeout` when absent).
   */
  queue_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800_000 })),
});

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
