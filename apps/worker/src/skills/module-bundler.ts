import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles TypeScript or JavaScript (with whatever it imports) into one ES module, with esbuild,
 * when the worker starts: every code skill, and the sandbox thread's own entry. Threads then load
 * plain JavaScript with no loader: nothing is transpiled per thread or per execution, and a skill
 * that does not compile stops the worker at start-up instead of failing every call.
 */
export class ModuleBundler {
  /** Bundles written so far: each gets a file of its own (see bundle). */
  private bundles = 0;

  private constructor(private readonly outDir: string) {}

  static async create(): Promise<ModuleBundler> {
    return new ModuleBundler(await mkdtemp(join(tmpdir(), 'skillrun-modules-')));
  }

  /**
   * Returns the path of the bundle, or throws with esbuild's first message. Each bundle is a new
   * file: a thread imports a module once per path, so a skill loaded again (SKILLS_WATCH) must come
   * under a path of its own to be run as it now is.
   */
  async bundle(name: string, entry: string): Promise<string> {
    const outfile = join(this.outDir, `${name}.${++this.bundles}.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      // The bundle runs in this very process's threads: nothing its Node supports is rewritten.
      target: `node${process.versions.node}`,
      sourcemap: 'inline',
      logLevel: 'silent',
      // The sandbox thread imports @skillrun/core, whose Redis scripts are imported as their text.
      loader: { '.lua': 'text' },
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
