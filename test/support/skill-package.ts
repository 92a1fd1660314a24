import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './service-process';

export interface PackedSkillPackage {
  /** The tarball's path. */
  tarball: string;
  /** The paths it holds, from the package's root. */
  files: string[];
}

/**
 * `npm pack` of packages/skill into `folder`, as a skill author would get it (the tests' global
 * setup has built it, as `npm run build` does: no script runs here, so files run at once share it).
 */
export async function packSkillPackage(folder: string): Promise<PackedSkillPackage> {
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', folder],
    { cwd: join(repoRoot, 'packages/skill') },
  );
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(folder, packed.filename), files: packed.files.map((file) => file.path) };
}
