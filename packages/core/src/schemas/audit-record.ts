import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/**
 * The administrative acts the audit log records, each one endpoint (the gateway's catalogue of
 * acts, apps/gateway/src/audit/audited-acts.ts, says which).
 */
export const AUDIT_ACTIONS = [
  'key.create',
  'key.revoke',
  'skill.publish',
  'skill.deprecate',
  'skill.undeprecate',
  'skill.dormancy.forget',
  'skill.credentials.set',
  'skill.credentials.delete',
  'skill.pause',
  'skill.resume',
  'skill.rollout.set',
  'skill.rollout.rollback',
  'skill.pin.set',
  'skill.pin.delete',
  'skill.approval.set',
  'approval.approve',
  'approval.reject',
  'execution.replay',
  'executions.replay',
  'executions.cancel',
  'batch.cancel',
  'schedule.create',
  'schedule.update',
  'schedule.delete',
  'schedule.backfill',
] as const;

export const AuditAction = StringEnum(AUDIT_ACTIONS, { description: 'Which administrative act.' });
export type AuditAction = Static<typeof AuditAction>;

export const AuditOutcome = StringEnum(['succeeded', 'refused', 'failed', 'unknown'], {
  description:
    '`succeeded` (answered 2xx), `refused` (4xx: not allowed, bad input, not found), `failed` (5xx), `unknown`: not answered yet, or the gateway or Redis was lost between the act and its answer (the record is written before the act; an act whose record cannot be written is refused).',
});
export type AuditOutcome = Static<typeof AuditOutcome>;

/** Who did it: the caller as the gateway identified them, never their credential. */
export const AuditActor = Type.Object({
  caller_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The authenticated caller; null for a request without credentials, or with refused ones.',
  }),
  credential: StringEnum(['api_key', 'oauth2', 'custom', 'none', 'invalid'], {
    description:
      'How they authenticated: `none` without credentials, `invalid` when the ones presented were refused.',
  }),
  key_id: Type.Optional(Type.String({ description: 'The id (not the secret) of the API key presented.' })),
});
export type AuditActor = Static<typeof AuditActor>;

/** One administrative act: who, when, what, from where, and how it ended. */
export const AuditRecord = Type.Object({
  audit_id: Type.String({ description: 'Ordered by time: the cursor of a listing is one.' }),
  at: Type.String({ format: 'date-time', description: 'When the act was asked for.' }),
  actor: AuditActor,
  action: AuditAction,
  method: Type.String(),
  path: Type.String({ description: 'The path asked (no query string).' }),
  target: Type.Record(Type.String(), Type.String(), {
    description: "What the act was on: the path's ids (`skill_id`, `version`, `key_id`, `schedule_id`, ...).",
  }),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description:
      "The request's fields that say what was asked (e.g. a new key's `caller_id` and `scopes`), as the catalogue of acts names them: never a secret.",
  }),
  address: Type.String({
    description: "The client's address (X-Forwarded-For through TRUST_PROXY's proxies).",
  }),
  outcome: AuditOutcome,
  status: Type.Optional(Type.Integer({ description: 'The HTTP status answered.' })),
  error_code: Type.Optional(Type.String({ description: "The refusal's or failure's error code." })),
  location: Type.Optional(
    Type.String({
      description:
        "Where what the act made is: its answer's Location (a new schedule, a replay's execution).",
    }),
  ),
});
export type AuditRecord = Static<typeof AuditRecord>;

/** GET /audit's query. */
export const AuditListQuery = Type.Object(
  {
    actor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Only this caller's acts." }),
    ),
    action: Type.Optional(AuditAction),
    outcome: Type.Optional(AuditOutcome),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only acts at or after this time.' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only acts at or before this time.' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'next_cursor of the previous page (send the same filters with it).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AuditListQuery = Static<typeof AuditListQuery>;

/** One page of GET /audit, newest first. */
export const AuditPage = Type.Object({
  records: Type.Array(AuditRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'null once nothing more is left. A page may hold fewer than `limit` and still have one.',
  }),
});
export type AuditPage = Static<typeof AuditPage>;
