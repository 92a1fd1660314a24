import type { Static } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/**
 * Beside the scopes, what a member of the team running skillrun may do with everyone's executions:
 * a `viewer` sees them without their inputs and outputs, an `operator` also pauses, cancels, replays
 * and manages schedules, an `admin` also manages keys and skills' credentials. A credential without
 * a role is a caller's: it acts as its scopes say, on its own executions.
 */
export const Role = StringEnum(['viewer', 'operator', 'admin'], {
  description:
    'viewer: sees every execution without inputs and outputs; operator: also pauses, cancels, replays and manages schedules; admin: also keys and credentials. Absent: a caller, as its scopes say.',
});
export type Role = Static<typeof Role>;
/** Weakest first: each role may do all that the ones before it may. */
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];
