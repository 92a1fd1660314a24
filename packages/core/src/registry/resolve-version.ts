import semver from 'semver';
import type { InputMigration } from '../schemas/input-migration';

export interface VersionCandidate {
  version: string;
  deprecated: boolean;
  migrations: InputMigration[];
}

export interface Resolution {
  version: string;
  /** Migrations to apply to the caller's inputs, in order; empty when the range matched directly. */
  migrations: InputMigration[];
}

/** Best first: not deprecated, then not a prerelease, then the highest version. */
function byPreference(a: VersionCandidate, b: VersionCandidate): number {
  return (
    Number(a.deprecated) - Number(b.deprecated) ||
    Number(semver.prerelease(a.version) !== null) - Number(semver.prerelease(b.version) !== null) ||
    semver.rcompare(a.version, b.version)
  );
}

/**
 * The version a lookup gets. Without a range: the latest (deprecated versions and prereleases only
 * when nothing else is there, as npm does). With one: the best version that satisfies it.
 */
export function pickVersion(available: VersionCandidate[], range: string | undefined): string | undefined {
  const ranked = [...available].sort(byPreference);
  return (range === undefined ? ranked[0] : ranked.find((each) => semver.satisfies(each.version, range)))
    ?.version;
}

/**
 * The version an invocation runs: as pickVersion, and failing that a later major version that
 * declares, hop by hop, how inputs of the requested major are upgraded (spec 002 section 31.5).
 * `known` holds every version ever published, available or not, since an intermediate major's
 * migration may be needed.
 */
export function resolveVersion(
  available: VersionCandidate[],
  range: string | undefined,
  known: VersionCandidate[],
): Resolution | null {
  const picked = pickVersion(available, range);
  if (picked !== undefined) return { version: picked, migrations: [] };
  const requestedMajor = range === undefined ? undefined : semver.minVersion(range)?.major;
  if (requestedMajor === undefined) return null;
  for (const target of [...available].sort(byPreference)) {
    if (semver.major(target.version) <= requestedMajor) continue;
    const migrations = migrationPath(requestedMajor, target, known);
    if (migrations) return { version: target.version, migrations };
  }
  return null;
}

/** Hops from `fromMajor` up to the target's major, each declared by a version of a later major. */
function migrationPath(
  fromMajor: number,
  target: VersionCandidate,
  known: VersionCandidate[],
): InputMigration[] | null {
  const targetMajor = semver.major(target.version);
  const path: InputMigration[] = [];
  let current = fromMajor;
  while (current < targetMajor) {
    const hop = bestHop(current, target, targetMajor, known);
    if (!hop) return null;
    path.push(hop.migration);
    current = hop.major;
  }
  return path;
}

function bestHop(from: number, target: VersionCandidate, targetMajor: number, known: VersionCandidate[]) {
  const declarers = [target, ...known.filter((candidate) => candidate.version !== target.version)];
  let best: { migration: InputMigration; major: number } | undefined;
  for (const candidate of declarers) {
    const major = semver.major(candidate.version);
    if (major > targetMajor || major <= from) continue;
    const migration = candidate.migrations.find((declared) => declared.from_major === from);
    if (migration && (!best || major > best.major)) best = { migration, major };
  }
  return best;
}
