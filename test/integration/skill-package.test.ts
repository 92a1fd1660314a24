import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSkillPackage } from '../support/skill-package';

const run = promisify(execFile);

/** @skillrun/skill as a skill folder outside the repository gets it: packed, installed, type-checked. */
describe('the publishable @skillrun/skill', () => {
  let dir: string;
  let packed: Awaited<ReturnType<typeof packSkillPackage>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skillrun-skill-package-'));
    packed = await packSkillPackage(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'a-skill', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', packed.tarball], { cwd: dir });
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs declarations and empty modules, and nothing else', () => {
    expect(packed.files).toEqual(
      expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(packed.files.filter((file) => !/^dist\/.*\.(js|d\.ts)$/.test(file))).toEqual(['package.json']);
  });

  for (const [resolution, module] of [
    [ts.ModuleResolutionKind.NodeNext, ts.ModuleKind.NodeNext],
    [ts.ModuleResolutionKind.Bundler, ts.ModuleKind.Preserve],
  ] as const) {
    it(`types a skill's module through its declarations (${ts.ModuleResolutionKind[resolution]}, skipLibCheck off)`, () => {
      const file = join(dir, 'index.ts');
      writeFileSync(
        file,
        `import type { SkillContext } from '@skillrun/skill';
export async function execute(input: { query: string }, ctx: SkillContext) {
  ctx.progress(50);
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const hits = await ctx.memory.search(input.query, 3);
  return { first: hits[0]?.snippet ?? null, attempt: ctx.attempt };
}
// A mistake the types must catch: memory.search takes a number of hits.
export const wrong = (ctx: SkillContext) => ctx.memory.search('q', 'three');
`,
      );
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: ts.ScriptTarget.ES2022,
        module,
        moduleResolution: resolution,
        // AbortSignal from the DOM's lib (as from @types/node): only the package's files are checked.
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        types: [],
        skipDefaultLibCheck: true,
      });
      const errors = ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(errors).toEqual(["Argument of type 'string' is not assignable to parameter of type 'number'."]);
      const declarations = program
        .getSourceFiles()
        .filter((source) => source.fileName.includes('node_modules/@skillrun/skill/'));
      expect(declarations.map((source) => source.fileName.split('@skillrun/skill/')[1]).sort()).toEqual([
        'dist/index.d.ts',
        'dist/skill-context.d.ts',
        'dist/skill-memory.d.ts',
      ]);
    });
  }
});
