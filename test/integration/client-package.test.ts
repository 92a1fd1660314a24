import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderServer, startProviderServer } from '../support/client-provider-server';
import { repoRoot } from '../support/service-process';

const run = promisify(execFile);

/** @skillrun/client as npm would publish it: built, packed, installed in an app outside the repo. */
describe('the publishable @skillrun/client', () => {
  let dir: string;
  let provider: ProviderServer;
  const pkg = () => join(dir, 'pkg');
  const app = () => join(dir, 'app');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skillrun-client-'));
    provider = await startProviderServer();
    await run(process.execPath, [join(repoRoot, 'packages/client/scripts/build.mjs'), pkg()]);
    cpSync(pkg(), join(app(), 'node_modules/@skillrun/client'), { recursive: true });
    writeFileSync(
      join(app(), 'package.json'),
      JSON.stringify({ name: 'app', type: 'module', private: true }),
    );
  });
  afterAll(async () => {
    await provider?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs its built JavaScript and declarations, and nothing else', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkg() });
    const [packed] = JSON.parse(stdout) as Array<{
      name: string;
      version: string;
      files: { path: string }[];
    }>;
    expect(packed).toMatchObject({ name: '@skillrun/client', version: '0.1.0' });
    const files = packed?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'index.js', 'index.d.ts']));
    expect(files.filter((file) => !/\.(js|d\.ts)$/.test(file)).sort()).toEqual(['README.md', 'package.json']);
    const manifest = JSON.parse(readFileSync(join(pkg(), 'package.json'), 'utf8'));
    expect(manifest).not.toHaveProperty('dependencies');
    expect(manifest.exports['.']).toEqual({ types: './index.d.ts', default: './index.js' });
  });

  it('runs from the installed package on plain Node, against a provider', async () => {
    writeFileSync(
      join(app(), 'main.mjs'),
      `import { SkillrunClient } from '@skillrun/client';
const client = new SkillrunClient({ apiKey: process.env.KEY, retry: { initialDelayMs: 5 } });
const output = await client.invokeAndWait(process.env.DESCRIPTOR_URL, { name: 'Node' });
console.log(JSON.stringify(output));`,
    );
    const { stdout } = await run(process.execPath, ['main.mjs'], {
      cwd: app(),
      env: { PATH: process.env.PATH ?? '', KEY: provider.key, DESCRIPTOR_URL: provider.descriptorUrl },
    });
    expect(JSON.parse(stdout)).toEqual({ greeting: 'Hello, Node!' });
  });

  it('types a consumer that augments SkillTypes through the published declarations', () => {
    cpSync(join(repoRoot, 'test/support/client-typed-skills/usage.ts'), join(app(), 'usage.ts'));
    const program = ts.createProgram([join(app(), 'usage.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      typeRoots: [join(repoRoot, 'node_modules/@types')],
      types: ['node'],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(errors).toEqual([]);
    expect(
      program.getSourceFiles().some((file) => file.fileName.endsWith('@skillrun/client/index.d.ts')),
    ).toBe(true);
  });
});
