import { type Static, Type } from '@sinclair/typebox';
import { Role } from './role';
import { Scope } from './scope';

/** GET /me: who the request's credentials say the caller is (the caller.id its invocations must name). */
export const CallerIdentity = Type.Object({
  caller_id: Type.String({ description: "What caller.id must be in this caller's invocations." }),
  scopes: Type.Array(Scope),
  skills: Type.Optional(
    Type.Array(Type.String(), { description: 'The skills the credential may use (all when absent).' }),
  ),
  role: Type.Optional(Role),
  method: Type.Union([Type.Literal('api_key'), Type.Literal('oauth2'), Type.Literal('custom')]),
});
export type CallerIdentity = Static<typeof CallerIdentity>;
