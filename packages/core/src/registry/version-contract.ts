import type { InputMigration } from '../schemas/input-migration';
import type { AccessPolicy, AuthConfig } from '../schemas/skill-descriptor';
import type { RegistryEntry } from '../store/registry-entry';
import type { VersionCandidate } from './resolve-version';

export function migrationsOf(entry: RegistryEntry): InputMigration[] {
  return (entry.source === 'hosted' ? entry.publication : entry.descriptor)['x-migrations'] ?? [];
}

/** Whether spec 002's friendly coercion applies to this version's inputs (on unless turned off). */
export function coercionOf(entry: RegistryEntry): boolean {
  return (entry.source === 'hosted' ? entry.publication : entry.descriptor)['x-coercion'] ?? true;
}

export function accessOf(entry: RegistryEntry, defaultAccess: AccessPolicy): AccessPolicy {
  return entry.source === 'hosted' ? (entry.publication.access ?? defaultAccess) : entry.descriptor.access;
}

/** How a version's callers authenticate (spec 000 `auth`). */
export function authOf(entry: RegistryEntry, defaultAuth: AuthConfig): AuthConfig {
  return entry.source === 'hosted' ? (entry.publication.auth ?? defaultAuth) : entry.descriptor.auth;
}

export function toCandidate(entry: RegistryEntry & { deprecation?: unknown }): VersionCandidate {
  return {
    version: entry.version,
    deprecated: entry.deprecation !== undefined,
    migrations: migrationsOf(entry),
  };
}

/** Private versions never show to anonymous callers: not listed, and 404 when asked for. */
export function isVisible(entry: RegistryEntry, defaultAccess: AccessPolicy): boolean {
  return accessOf(entry, defaultAccess) !== 'private';
}
