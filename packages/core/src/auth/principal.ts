import type { Static } from '@sinclair/typebox';
import { StringEnum } from '../schemas/json-schema';

/** What a credential allows: spec 000's OAuth scopes, plus `admin` for keys and registrations. */
export const Scope = StringEnum(['skill:invoke', 'skill:read', 'admin']);
export type Scope = Static<typeof Scope>;
export const SCOPES: readonly Scope[] = ['skill:invoke', 'skill:read', 'admin'];

/** Who an authenticated request comes from, whatever the credential was. */
export interface Principal {
  /** The caller id used everywhere (executions, memory, limits). */
  callerId: string;
  scopes: readonly Scope[];
  /** The skill ids this credential may use; undefined for all. */
  skills?: readonly string[];
  method: 'api_key' | 'oauth2' | 'custom';
}
