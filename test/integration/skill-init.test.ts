import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { repoRoot } from '../support/service-process';
import { packSkillPackage } from '../support/skill-package';
import { TestSystem } from '../support/system';

const run = promisify(execFile);
const FILES = ['index.ts', 'package.json', 'skill.json', 'tsconfig.json'];

/** `skillrun init` in a folder outside the repository, as a skill author starts. */
describe('skillrun init: a skill folder outside the repository', () => {
  let parent: string;
  let system: TestSystem | undefined;
  const skill = (file = '') => join(parent, 'hello', file);
  const init = (name: string) => runSkillrun(['init', name], { cwd: parent });
  const expectCode = (ran: CliRun, code: number) =>
    expect(ran.code, `exit ${ran.code}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`).toBe(code);

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'skillrun-init-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  it('refuses a name that is not a skill id, in one line, writing nothing', async () => {
    const ran = await init('Hello-World');
    expectCode(ran, 2);
    expect(ran.stderr).toBe(
      'error: "Hello-World" is not a skill name: it must match ^[a-z][a-z0-9_]*$ (at most 128 characters)\n',
    );
    expect(readdirSync(parent)).toEqual([]);
  });

  it("writes a code skill's folder: the README's example skill, and what type-checks it", async () => {
    const ran = await init('hello');
    expectCode(ran, 0);
    expect(ran.stdout).toContain('Created hello/: skill.json, index.ts, package.json, tsconfig.json');
    expect(ran.stdout).toContain(`SKILLS_DIR=skills:${parent} npm start`);
    expect(readdirSync(skill()).sort()).toEqual(FILES);
    for (const file of ['skill.json', 'index.ts']) {
      expect(readFileSync(skill(file), 'utf8')).toBe(
        readFileSync(join(repoRoot, 'examples/skills/hello', file), 'utf8'),
      );
    }
    expect(JSON.parse(readFileSync(skill('package.json'), 'utf8')).devDependencies).toHaveProperty(
      '@skillrun/skill',
      '^0.1.0',
    );
  });

  it('refuses to write over an existing folder, in one line', async () => {
    const before = readFileSync(skill('index.ts'), 'utf8');
    const ran = await init('hello');
    expectCode(ran, 1);
    expect(ran.stderr).toBe(`error: hello already exists in ${parent}: nothing was written\n`);
    expect(readFileSync(skill('index.ts'), 'utf8')).toBe(before);
  });

  it('type-checks with @skillrun/skill installed from its packed tarball', async () => {
    const { tarball } = await packSkillPackage(parent);
    // Its other dev dependencies, the repository's own versions, are copied: no registry is asked.
    copyInstalled(['typescript', '@types/node'], skill());
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: skill() });
    // tsc says nothing when it finds nothing wrong; npm, --silent, nothing either.
    const errors = await run('npm', ['run', '--silent', 'check'], { cwd: skill() }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout || String(error),
    );
    expect(errors).toBe('');
  });

  it('is hosted by a worker whose SKILLS_DIR is the folder it was made in, and runs', async () => {
    system = await TestSystem.start();
    await system.addWorker({ SKILLS_DIR: parent });
    const { final } = await system.client.run('hello', { name: 'Ada' });
    expect(final).toMatchObject({ status: 'completed', output: { greeting: 'Hello, Ada!' } });
  });
});

/** Copies installed packages, with what they depend on, from the repository's node_modules. */
function copyInstalled(names: string[], folder: string): void {
  for (const name of names) {
    const target = join(folder, 'node_modules', name);
    if (existsSync(target)) continue;
    const source = join(repoRoot, 'node_modules', name);
    cpSync(source, target, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
    copyInstalled(Object.keys(manifest.dependencies ?? {}), folder);
  }
}
