import { type Static, Type } from '@sinclair/typebox';
import { JobBudget } from './budget';
import { ParentLink } from './execution';
import { ExecutionMetadata, ExecutionTags } from './execution-tags';
import { Priority } from './invocation-request';
import { StringEnum } from './json-schema';

/**
 * What the gateway puts on a skill's queue and the worker re-validates on dequeue: the contract
 * between processes that may run different versions. Never holds credentials.
 */
export const JobPayload = Type.Object({
  v: Type.Literal(1),
  execution_id: Type.String({ format: 'uuid' }),
  skill_id: Type.String(),
  skill_version: Type.String(),
  inputs: Type.Object({}, { additionalProperties: true }),
  caller: Type.Object({ id: Type.String(), type: Type.String() }, { additionalProperties: false }),
  trace_id: Type.String(),
  priority: Priority,
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Epoch ms that no attempt may run past: a composite parent's deadline, inherited by its steps. */
  deadline: Type.Optional(Type.Integer({ minimum: 0 })),
  /** How long, from its acceptance, the execution may wait to start; past it, it ends as a timeout unrun. */
  queue_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
  parent: Type.Optional(ParentLink),
  /** The authenticated caller that owns the execution (only they read it); steps inherit it. */
  owner: Type.Optional(Type.String()),
  /** What the skill's `concurrency.per_key` counts it under (context.concurrency_key). */
  concurrency_key: Type.Optional(Type.String()),
  /** context.tags and context.metadata (or the composite's, for a step), kept on its record. */
  tags: Type.Optional(ExecutionTags),
  metadata: Type.Optional(ExecutionMetadata),
  /**
   * Its skill's approval policy held it (`awaiting_approval`): its worker reads its record before it
   * runs it, and ends it APPROVAL_TIMEOUT if no approver has decided by then.
   */
  approval: Type.Optional(Type.Literal(true)),
  /** context.budget (or the composite's, for a step): the tree spends from its root's. */
  budget: Type.Optional(JobBudget),
  /** The caller whose daily budget (LIMITS' daily_budget_usd) its cost counts to; steps inherit it. */
  daily_spend_of: Type.Optional(Type.String()),
  /** The debounce key its invocation named (context.debounce): a trailing one runs with the last call's inputs. */
  debounce: Type.Optional(
    Type.Object(
      {
        key: Type.String(),
        mode: StringEnum(['trailing', 'leading']),
        /** How long after its first call the key may hold the execution back (trailing) or open (leading). */
        max_delay_ms: Type.Optional(Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: false },
    ),
  ),
});
export type JobPayload = Static<typeof JobPayload>;
