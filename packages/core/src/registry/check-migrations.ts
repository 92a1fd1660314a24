import semver from 'semver';
import { SkillError } from '../errors/skill-error';
import type { InputMigration } from '../schemas/input-migration';

/** A version may only declare migrations from earlier major versions, one per major. */
export function checkMigrations(version: string, migrations: InputMigration[], basePath: string): void {
  const major = semver.major(version);
  migrations.forEach((migration, index) => {
    const path = `${basePath}/${index}/from_major`;
    if (migration.from_major >= major) {
      throw invalidMigration(path, `must be below this version's major (${major})`);
    }
    if (migrations.findIndex((other) => other.from_major === migration.from_major) !== index) {
      throw invalidMigration(path, `major ${migration.from_major} has another migration already`);
    }
  });
}

function invalidMigration(path: string, message: string): SkillError {
  return new SkillError(
    'INVALID_INPUT',
    `Invalid migration: [${path.split('/').filter(Boolean).join(' -> ')}] ${message}`,
    {
      details: [{ path, message }],
    },
  );
}
