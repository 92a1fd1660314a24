import { type Static, Type } from '@sinclair/typebox';
import { InputMigration } from './input-migration';
import { JsonSchemaObject, StringEnum } from './json-schema';
import { SemVer } from './semver';
import { ConcurrencySettings, RateLimitSettings } from './skill-definition';
import { SkillPause } from './skill-pause';

export const CapabilityType = StringEnum(['plugin', 'api', 'knowledge', 'task']);
export type CapabilityType = Static<typeof CapabilityType>;
export const AccessPolicy = StringEnum(['public', 'restricted', 'private']);
export type AccessPolicy = Static<typeof AccessPolicy>;
export const AuthType = StringEnum(['api_key', 'oauth2', 'custom', 'none']);

export const ProtocolVersion = Type.Object({
  version: SemVer,
  changelog_url: Type.Optional(Type.String({ format: 'uri' })),
});

export const InvocationEndpoint = Type.Object({
  url: Type.String({ format: 'uri' }),
  method: Type.Literal('POST'),
  content_type: Type.String(),
  status_url: Type.String({ pattern: '\\{execution_id\\}' }),
  result_url: Type.String({ pattern: '\\{execution_id\\}' }),
  /** Ours: POST here to cancel an execution (an extension of spec 001, which has no cancel). */
  'x-cancel_url': Type.Optional(Type.String({ pattern: '\\{execution_id\\}' })),
  /** Ours: the execution's status as server-sent events, for consumers that would rather not poll. */
  'x-events_url': Type.Optional(Type.String({ pattern: '\\{execution_id\\}' })),
  timeout_ms: Type.Integer({ minimum: 1 }),
  retry: Type.Object({
    max_attempts: Type.Integer({ minimum: 1 }),
    backoff_ms: Type.Integer({ minimum: 0 }),
  }),
});

export const ParameterDefinition = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  type: Type.String(),
  description: Type.Optional(Type.String()),
  required: Type.Boolean(),
  default: Type.Optional(Type.Unknown()),
  schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export type ParameterDefinition = Static<typeof ParameterDefinition>;

export const OutputDefinition = Type.Object({
  content_type: Type.String(),
  schema: JsonSchemaObject,
  description: Type.Optional(Type.String()),
});

export const AuthConfig = Type.Object({
  type: AuthType,
  description: Type.Optional(Type.String()),
  header: Type.Optional(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 128 })),
  oauth2: Type.Optional(
    Type.Object({
      authorization_url: Type.String({ format: 'uri' }),
      token_url: Type.String({ format: 'uri' }),
      scopes: Type.Record(Type.String(), Type.String()),
    }),
  ),
});
export type AuthConfig = Static<typeof AuthConfig>;

export const Provider = Type.Object({
  name: Type.String({ minLength: 1 }),
  url: Type.Optional(Type.String({ format: 'uri' })),
  contact: Type.Optional(Type.String()),
});

export const Deprecation = Type.Object({
  message: Type.String({ maxLength: 500 }),
  deprecated_at: Type.String({ format: 'date-time' }),
});
export type Deprecation = Static<typeof Deprecation>;

/**
 * The Skill Descriptor, spec 000: what a provider publishes and a consumer discovers. Unknown
 * top-level fields are refused (a misspelt optional field is an error, not silence), except
 * extensions named `x-...`; the `x-` fields below are this service's own.
 */
export const SkillDescriptor = Type.Object(
  {
    protocol: ProtocolVersion,
    id: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      maxLength: 128,
      description: 'Unique skill id, e.g. com.example.translate-v1',
    }),
    name: Type.String({ minLength: 1 }),
    version: SemVer,
    capability_type: CapabilityType,
    description: Type.String(),
    provider: Provider,
    endpoint: InvocationEndpoint,
    inputs: Type.Array(ParameterDefinition),
    'x-inputs_schema': Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            "The input schema's own keywords that no parameter holds ($schema, $defs that the parameters' $refs point into, additionalProperties, ...): with `inputs` (its type, properties and required), the whole input schema.",
        },
      ),
    ),
    output: OutputDefinition,
    auth: AuthConfig,
    access: AccessPolicy,
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
    documentation_url: Type.Optional(Type.String({ format: 'uri' })),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    'x-category': Type.Optional(
      Type.String({ maxLength: 100, description: 'The group of spec 003 (memory, code, text, ...).' }),
    ),
    'x-coercion': Type.Optional(
      Type.Boolean({ description: "Whether spec 002's friendly coercion applies to inputs (default true)." }),
    ),
    'x-migrations': Type.Optional(
      Type.Array(InputMigration, {
        maxItems: 20,
        description: 'How inputs of earlier major versions are upgraded to this version.',
      }),
    ),
    'x-concurrency': Type.Optional(
      Type.Object(ConcurrencySettings.properties, {
        additionalProperties: false,
        readOnly: true,
        description:
          'The skill\'s concurrency limits (skill.json): at most `limit` executions at once, and `per_key` per `context.concurrency_key`; the others wait, `waiting_for: "concurrency"`.',
      }),
    ),
    'x-rate_limit': Type.Optional(
      Type.Object(RateLimitSettings.properties, {
        additionalProperties: false,
        readOnly: true,
        description:
          "The skill's rate limit (skill.json): at most `max` executions start in any `per_ms` window.",
      }),
    ),
    'x-deprecated': Type.Optional(
      Type.Object(Deprecation.properties, {
        readOnly: true,
        description: 'Set by the registry when this version is deprecated; refused on registration.',
      }),
    ),
    'x-dormant': Type.Optional(
      Type.Literal(true, {
        readOnly: true,
        description:
          'Set by the registry while no worker runs this version and its pool scales to zero: invocations are accepted and wait for a worker to start. Refused on registration.',
      }),
    ),
    'x-paused': Type.Optional(
      Type.Object(SkillPause.properties, {
        readOnly: true,
        description:
          'Shown to admins while the skill is paused (POST /skills/{id}/pause): invocations are accepted and wait, none starts. Refused on registration.',
      }),
    ),
  },
  { additionalProperties: false, patternProperties: { '^x-': {} } },
);
export type SkillDescriptor = Static<typeof SkillDescriptor>;

/**
 * `descriptor.json` beside a hosted skill's skill.json: the descriptor fields skill.json has no
 * room for. What it leaves out comes from the gateway's settings.
 */
export const SkillPublication = Type.Object(
  {
    capability_type: Type.Optional(CapabilityType),
    provider: Type.Optional(Provider),
    auth: Type.Optional(AuthConfig),
    access: Type.Optional(AccessPolicy),
    documentation_url: Type.Optional(Type.String({ format: 'uri' })),
    'x-coercion': Type.Optional(Type.Boolean()),
    'x-migrations': Type.Optional(Type.Array(InputMigration, { maxItems: 20 })),
  },
  { additionalProperties: false },
);
export type SkillPublication = Static<typeof SkillPublication>;
