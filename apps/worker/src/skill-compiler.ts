import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Compiles each code skill (TypeScript or JavaScript, with whatever it imports) into one ES module
 * when the worker starts. Threads then load plain JavaScript: nothing is transpiled per execution,
 * and a skill that does not compile stops the worker at start-up instead of failing every call.
 */
export class SkillCompiler {
  private constructor(private readonly outDir: string) {}

  static async create(): Promise<SkillCompiler> {
    return new SkillCompiler(await mkdtemp(join(tmpdir(), 'skillrun-skills-')));
  }

  /** Returns the path of the compiled module, or throws with esbuild's first message. */
  async compile(skillName: string, entry: string): Promise<string> {
    const outfile = join(this.outDir, `${skillName}.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      logLevel: 'silent',
      // Dependencies written as CommonJS still call require() inside the ES module bundle.
      banner: {
        js: "import { createRequire as __skillrunRequire } from 'node:module'; const require = __skillrunRequire(import.meta.url);",
      },
    });
    return outfile;
  }

  async close(): Promise<void> {
    await rm(this.outDir, { recursive: true, force: true });
  }
}
