import { type Static, Type } from '@sinclair/typebox';
import { JsonSchemaObject, StringEnum } from './json-schema';

const SemVer = Type.String({
  pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$',
});

export const CapabilityType = StringEnum(['plugin', 'api', 'knowledge', 'task']);
export const AccessPolicy = StringEnum(['public', 'restricted', 'private']);
export const AuthType = StringEnum(['api_key', 'oauth2', 'custom', 'none']);

export const ProtocolVersion = Type.Object({
  version: SemVer,
  changelog_url: Type.Optional(Type.String({ format: 'uri' })),
});

export const InvocationEndpoint = Type.Object({
  url: Type.String({ format: 'uri' }),
  method: Type.Literal('POST'),
  content_type: Type.String(),
  status_url: Type.String(),
  result_url: Type.String(),
  timeout_ms: Type.Integer({ minimum: 1 }),
  retry: Type.Object({
    max_attempts: Type.Integer({ minimum: 1 }),
    backoff_ms: Type.Integer({ minimum: 0 }),
  }),
});

export const ParameterDefinition = Type.Object({
  name: Type.String({ minLength: 1 }),
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
  header: Type.Optional(Type.String()),
  oauth2: Type.Optional(
    Type.Object({
      authorization_url: Type.String({ format: 'uri' }),
      token_url: Type.String({ format: 'uri' }),
      scopes: Type.Record(Type.String(), Type.String()),
    }),
  ),
});

/** The Skill Descriptor, spec 000: what a provider publishes and a consumer discovers. */
export const SkillDescriptor = Type.Object({
  protocol: ProtocolVersion,
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  version: SemVer,
  capability_type: CapabilityType,
  description: Type.String(),
  provider: Type.Object({
    name: Type.String(),
    url: Type.Optional(Type.String({ format: 'uri' })),
    contact: Type.Optional(Type.String()),
  }),
  endpoint: InvocationEndpoint,
  inputs: Type.Array(ParameterDefinition),
  output: OutputDefinition,
  auth: AuthConfig,
  access: AccessPolicy,
  tags: Type.Optional(Type.Array(Type.String())),
  documentation_url: Type.Optional(Type.String({ format: 'uri' })),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type SkillDescriptor = Static<typeof SkillDescriptor>;
