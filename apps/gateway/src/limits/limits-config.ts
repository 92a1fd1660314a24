import { type Static, Type } from '@sinclair/typebox';
import { ConfigError, SchemaValidator, SkillError } from '@skillrun/core';

const Rate = Type.Object(
  {
    requests: Type.Integer({ minimum: 1, description: 'Invocations allowed per window.' }),
    per_seconds: Type.Integer({ minimum: 1, maximum: 86_400, description: 'The window, in seconds.' }),
  },
  { additionalProperties: false },
);

const Policy = {
  rate: Type.Optional(Rate),
  concurrency: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Executions in flight (accepted, not yet final) at once.' }),
  ),
};

export const SkillLimits = Type.Object(Policy, { additionalProperties: false });
export type SkillLimits = Static<typeof SkillLimits>;

export const CallerLimits = Type.Object(
  {
    ...Policy,
    daily_budget_usd: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          "What the caller's executions may cost per UTC day, in US dollars (at the workers' price table); spent, its invocations are refused (429 BUDGET_EXCEEDED) until midnight UTC.",
      }),
    ),
    skills: Type.Optional(Type.Record(Type.String({ minLength: 1 }), SkillLimits)),
  },
  { additionalProperties: false },
);
export type CallerLimits = Static<typeof CallerLimits>;

/**
 * The `LIMITS` setting: `default` applies to every caller (each caller has its own counters),
 * `callers` overrides it for named caller ids, field by field. A policy's `skills` limits the
 * invocations of one skill on top of the caller's overall limits.
 */
export const Limits = Type.Object(
  {
    default: Type.Optional(CallerLimits),
    callers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), CallerLimits)),
  },
  { additionalProperties: false },
);
export type Limits = Static<typeof Limits>;

const validator = new SchemaValidator(Limits, 'value');

/** Parses the `LIMITS` JSON; no setting means no limits. */
export function parseLimits(json: string | undefined): Limits {
  if (json === undefined) return {};
  try {
    return validator.parse(JSON.parse(json));
  } catch (error) {
    const reason = error instanceof SkillError ? error.message : 'it is not JSON';
    throw new ConfigError(`Invalid configuration:\n  LIMITS: ${reason}`);
  }
}

/** What applies to one caller invoking one skill. */
export interface EffectiveLimits {
  overall: SkillLimits;
  skill: SkillLimits;
  /** The caller's daily budget, if it has one (an anonymous caller never has). */
  dailyBudgetUsd?: number;
}

/** What applies when `LIMITS` sets nothing: shared, as every invocation asks three times. */
const UNLIMITED: EffectiveLimits = Object.freeze({ overall: Object.freeze({}), skill: Object.freeze({}) });

export function limitsFor(limits: Limits, callerId: string | undefined, skillId: string): EffectiveLimits {
  if (limits.default === undefined && limits.callers === undefined) return UNLIMITED;
  const fallback = limits.default ?? {};
  const own = callerId === undefined ? undefined : limits.callers?.[callerId];
  const dailyBudgetUsd =
    callerId === undefined ? undefined : (own?.daily_budget_usd ?? fallback.daily_budget_usd);
  return {
    overall: policyOf(own, fallback),
    skill: policyOf(own?.skills?.[skillId], fallback.skills?.[skillId] ?? {}),
    ...(dailyBudgetUsd === undefined ? {} : { dailyBudgetUsd }),
  };
}

function policyOf(own: SkillLimits | undefined, fallback: SkillLimits): SkillLimits {
  const rate = own?.rate ?? fallback.rate;
  const concurrency = own?.concurrency ?? fallback.concurrency;
  return { ...(rate ? { rate } : {}), ...(concurrency === undefined ? {} : { concurrency }) };
}
