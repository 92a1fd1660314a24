import type { Static } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/** What a credential allows: spec 000's OAuth scopes, plus `admin` for keys and registrations. */
export const Scope = StringEnum(['skill:invoke', 'skill:read', 'admin']);
export type Scope = Static<typeof Scope>;
export const SCOPES: readonly Scope[] = ['skill:invoke', 'skill:read', 'admin'];
