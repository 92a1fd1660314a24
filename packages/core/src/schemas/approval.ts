import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/** The longest an execution may wait for its approval: a week, as a queue timeout. */
export const LONGEST_APPROVAL_MS = 604_800_000;

/**
 * Ours: a person's (or an agent's) approval before an execution runs. `when`: `always`, or a rule on
 * the validated inputs, `field op literal` (e.g. `amount > 1000`, `region == 'eu'`; a dotted path, one
 * of > >= < <= == !=, a JSON literal or a quoted string): parsed, never evaluated as code.
 */
export const ApprovalPolicy = Type.Object(
  {
    when: Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        '`always`, or `field op value` on the inputs: a dotted path, one of > >= < <= == !=, and a number, true, false, null or a quoted string (e.g. `amount > 1000`).',
    }),
    approvers: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'Caller ids that may approve or reject; an admin always may. Admins only when absent.',
      }),
    ),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 1000,
        maximum: LONGEST_APPROVAL_MS,
        description:
          'How long an execution waits for a decision before it fails with APPROVAL_TIMEOUT (default 24 hours).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ApprovalPolicy = Static<typeof ApprovalPolicy>;

/** How long an execution waits for a decision when its policy does not say. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 86_400_000;

/** Ours: an execution's approval, while it waits and once decided (who decided it, and when). */
export const ApprovalState = Type.Object({
  state: StringEnum(['pending', 'approved', 'rejected', 'timed_out']),
  when: Type.Optional(Type.String({ description: "The rule that asked for it (its policy's `when`)." })),
  approvers: Type.Optional(Type.Array(Type.String())),
  /** When it fails with APPROVAL_TIMEOUT unless decided. */
  deadline: Type.String({ format: 'date-time' }),
  decided_by: Type.Optional(
    Type.String({ description: 'The caller who decided (for a one-time link, who issued it).' }),
  ),
  decided_at: Type.Optional(Type.String({ format: 'date-time' })),
  via: Type.Optional(StringEnum(['api', 'link', 'mcp', 'a2a'], { description: 'Where it was decided.' })),
  reason: Type.Optional(Type.String()),
});
export type ApprovalState = Static<typeof ApprovalState>;

/** POST approve or reject: an optional reason, kept on the execution. */
export const ApprovalDecision = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);
export type ApprovalDecision = Static<typeof ApprovalDecision>;

/** PUT /skills/{id}/approval: the operator's policy for every version, or null to leave the skill's own. */
export const SkillApprovalUpdate = Type.Object(
  { approval: Type.Union([ApprovalPolicy, Type.Null()]) },
  { additionalProperties: false },
);
export type SkillApprovalUpdate = Static<typeof SkillApprovalUpdate>;

/** GET and PUT /skills/{id}/approval: the operator's policy, which wins over each version's own. */
export const SkillApprovalState = Type.Object({
  skill_id: Type.String(),
  approval: Type.Union([ApprovalPolicy, Type.Null()], {
    description: "The operator's policy (null: each version's skill.json `approval` applies, if any).",
  }),
  set_by: Type.Optional(Type.String()),
  set_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type SkillApprovalState = Static<typeof SkillApprovalState>;

/** GET /approvals: pending approvals the caller may decide, oldest first. */
export const ApprovalListQuery = Type.Object(
  {
    skill_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);
export type ApprovalListQuery = Static<typeof ApprovalListQuery>;

/** A pending approval as an approver sees it: the execution, its inputs, and where to decide. */
export const ApprovalView = Type.Object({
  execution_id: Type.String(),
  skill_id: Type.String(),
  skill_version: Type.String(),
  description: Type.String(),
  inputs: Type.Record(Type.String(), Type.Unknown()),
  approval: ApprovalState,
  created_at: Type.String({ format: 'date-time' }),
  caller: Type.Object({ id: Type.String(), type: Type.String() }, { description: 'Who invoked it.' }),
  urls: Type.Object({ approve: Type.String(), reject: Type.String(), link: Type.String() }),
});
export type ApprovalView = Static<typeof ApprovalView>;

export const ApprovalListPage = Type.Object({
  approvals: Type.Array(ApprovalView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type ApprovalListPage = Static<typeof ApprovalListPage>;

/** POST link: a one-time link that approves or rejects without credentials. */
export const ApprovalLink = Type.Object({
  url: Type.String({
    description: 'GET shows the approval; POST {url}/approve or {url}/reject decides it, once.',
  }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type ApprovalLink = Static<typeof ApprovalLink>;
