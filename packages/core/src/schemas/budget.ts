import { type Static, Type } from '@sinclair/typebox';

/**
 * Ours: context.budget, what an execution and every step under it may spend together. A limit left
 * out is not enforced; the tree stops at the first one reached.
 */
export const Budget = Type.Object(
  {
    max_tokens: Type.Optional(
      Type.Integer({ minimum: 1, description: 'LLM tokens (prompt and completion) of the whole tree.' }),
    ),
    max_cost_usd: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: "Cost in US dollars of the whole tree, at the workers' price table.",
      }),
    ),
    max_steps: Type.Optional(
      Type.Integer({ minimum: 0, description: "Steps that the tree's composites may launch, in all." }),
    ),
    max_duration_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'From its acceptance: no LLM call or step starts after it, and a running call stops.',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      "Ours: what the execution and its composite's steps may spend together (a step spends from its parent's budget). Over it, the execution fails with BUDGET_EXCEEDED and what was spent.",
  },
);
export type Budget = Static<typeof Budget>;

/** A budget on a job: the root execution whose counters the whole tree spends from, and its limits. */
export const JobBudget = Type.Object(
  {
    /** The execution that was invoked with the budget: its budget key holds the tree's spend. */
    root: Type.String({ format: 'uuid' }),
    limits: Budget,
    /** Epoch ms past which nothing more starts (max_duration_ms from the root's acceptance). */
    ends_at: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type JobBudget = Static<typeof JobBudget>;

/** What a tree spent, as BUDGET_EXCEEDED's details and the budget's own view say it. */
export const BudgetSpend = Type.Object({
  tokens: Type.Integer({ minimum: 0 }),
  cost_usd: Type.Number({ minimum: 0 }),
  steps: Type.Integer({ minimum: 0 }),
});
export type BudgetSpend = Static<typeof BudgetSpend>;
