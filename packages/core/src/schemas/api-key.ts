import { type Static, Type } from '@sinclair/typebox';
import { Scope } from './scope';

const CallerId = Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9._:@-]+$' });
const DailyBudgetUsd = Type.Number({
  exclusiveMinimum: 0,
  description:
    "What the key's caller's executions may cost per UTC day, in US dollars (over LIMITS' daily_budget_usd); spent, invocations with the key are refused (429 BUDGET_EXCEEDED) until midnight UTC.",
});
const SkillId = Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });

/** What an operator asks for when creating an API key. */
export const NewApiKey = Type.Object(
  {
    caller_id: CallerId,
    scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
    skills: Type.Optional(
      Type.Array(SkillId, { uniqueItems: true, description: 'The skills the key may use (default: all).' }),
    ),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'A label for operators.' })),
    daily_budget_usd: Type.Optional(DailyBudgetUsd),
  },
  { additionalProperties: false },
);
export type NewApiKey = Static<typeof NewApiKey>;

/** An API key as it can be shown: everything but the secret and its hash. */
export const ApiKeyRecord = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  caller_id: CallerId,
  scopes: Type.Array(Scope),
  skills: Type.Optional(Type.Array(SkillId)),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  daily_budget_usd: Type.Optional(DailyBudgetUsd),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type ApiKeyRecord = Static<typeof ApiKeyRecord>;

/** The answer to creating a key: the only time the key itself is ever shown. */
export const CreatedApiKey = Type.Object({
  key: Type.String({
    pattern: '^srk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$',
    description: 'srk_<id>_<secret>; only its hash is kept, so it cannot be shown again.',
  }),
  record: ApiKeyRecord,
});
export type CreatedApiKey = Static<typeof CreatedApiKey>;
