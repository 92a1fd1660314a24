import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bundles entry points (output path without extension → source, both from the repository's root)
 * into ES modules, each `.mjs` with a linked source map, to run under plain `node`.
 *
 * Only our workspace packages (TypeScript sources) are bundled. Third-party packages stay in
 * node_modules, loaded by Node as usual: some read files beside themselves at run time (Swagger UI's
 * and bull-board's assets) and esbuild, which the worker uses to bundle skills, is a native binary.
 *
 * Each entry is bundled on its own, with code splitting: what a process imports only when first
 * needed (`await import(...)`, such as the gateway's agent protocols) is a chunk beside the entry,
 * so that the packages it imports load then, not at start (in one file, esbuild hoists every
 * package import to its top). Entries share no chunk: a sandbox thread's entry must not load the
 * worker's packages with code both use. Chunks sit in the entry's folder, at the same depth, so
 * paths derived from import.meta.url hold.
 */
export async function bundle(entries: Record<string, string>): Promise<void> {
  await Promise.all(
    [...entriesByFolder(entries)].map(async ([folder, named]) => {
      const built = await Promise.all(
        Object.entries(named).map(([name, source]) => bundleOne(folder, name, source)),
      );
      await removeStaleChunks(
        folder,
        new Set(built.flatMap(({ metafile }) => Object.keys(metafile.outputs))),
      );
    }),
  );
}

function bundleOne(folder: string, name: string, source: string) {
  return build({
    entryPoints: { [name]: source },
    absWorkingDir: repoRoot,
    outdir: folder,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    metafile: true,
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    // The oldest Node package.json's engines accept.
    target: 'node24',
    sourcemap: 'linked',
    logLevel: 'warning',
    // The Redis scripts, imported as their text (packages/core/src/redis/lua-module.d.ts).
    loader: { '.lua': 'text' },
    plugins: [thirdPartyExternal],
  });
}

/** The entries grouped by the folder they are written to, each named by its file there. */
function entriesByFolder(entries: Record<string, string>): Map<string, Record<string, string>> {
  const folders = new Map<string, Record<string, string>>();
  for (const [output, source] of Object.entries(entries)) {
    const slash = output.lastIndexOf('/');
    const folder = slash === -1 ? '.' : output.slice(0, slash);
    folders.set(folder, { ...folders.get(folder), [output.slice(slash + 1)]: source });
  }
  return folders;
}

/**
 * The chunks (`<name>-<hash>.mjs` and their maps) of earlier builds that this one did not write:
 * removed after the build, never before, so that a process starting meanwhile (`npm start` builds
 * first, while other processes may be starting) never misses a chunk its entry imports.
 */
async function removeStaleChunks(folder: string, written: Set<string>): Promise<void> {
  const names = await readdir(`${repoRoot}${folder}`).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => /-[A-Z0-9]{8}\.mjs(\.map)?$/.test(name) && !written.has(`${folder}/${name}`))
      .map((name) => rm(`${repoRoot}${folder}/${name}`, { force: true })),
  );
}

const WORKSPACE_PREFIX = '@skillrun/';

const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path.startsWith(WORKSPACE_PREFIX) ? undefined : { path, external: true },
    );
  },
};

/**
 * The long-running processes (gateway, worker, both in one), each beside its sources. dist/ sits
 * at the same depth as src/, so the paths the code derives from import.meta.url still hold.
 */
export const APP_ENTRIES: Record<string, string> = {
  'apps/gateway/dist/main': 'apps/gateway/src/main.ts',
  'apps/worker/dist/main': 'apps/worker/src/main.ts',
  'apps/standalone/dist/main': 'apps/standalone/src/main.ts',
  // Each one's tracing start, loaded first with `node --import` (see @skillrun/telemetry/start).
  'apps/gateway/dist/tracing': 'apps/gateway/src/tracing.ts',
  'apps/worker/dist/tracing': 'apps/worker/src/tracing.ts',
  'apps/standalone/dist/tracing': 'apps/standalone/src/tracing.ts',
  // The command line (apps/cli/bin/skillrun.mjs runs it when it is up to date), and its keys
  // command apart, so that the Redis code loads only for `skillrun keys`.
  'apps/cli/dist/main': 'apps/cli/src/main.ts',
  'apps/cli/dist/keys': 'apps/cli/src/keys/index.ts',
  // The sandbox thread's entry, found beside the bundle that hosts a worker (see skill-sandbox.ts).
  'apps/worker/dist/skill-thread': 'apps/worker/src/sandbox/skill-thread.ts',
  'apps/standalone/dist/skill-thread': 'apps/worker/src/sandbox/skill-thread.ts',
};

/**
 * The console (apps/console): its TypeScript bundled for browsers, minified, with its style and
 * page, into apps/console/dist, which the gateway serves at /console. Everything it loads is in that
 * folder: no CDN, so it works where the gateway is the only host in reach.
 */
export async function bundleConsole(): Promise<void> {
  const source = `${repoRoot}apps/console`;
  const outdir = `${source}/dist`;
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: { console: `${source}/src/main.ts`, style: `${source}/style.css` },
    absWorkingDir: repoRoot,
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['chrome111', 'firefox111', 'safari16.4'],
    minify: true,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  await copyFile(`${source}/index.html`, `${outdir}/index.html`);
}

/**
 * @skillrun/skill's declarations and empty modules (packages/skill/dist), what a skill folder
 * outside the repository installs (`npm pack` there builds them too): `tsc` in a process of its
 * own, beside esbuild's, its messages on the terminal. Skipped when they are newer than every
 * source: tsc takes two seconds, which every `npm start` would wait for.
 */
export async function buildSkillPackage(): Promise<void> {
  const folder = `${repoRoot}packages/skill/`;
  const project = `${folder}tsconfig.build.json`;
  const sources = [project, ...(await readdir(`${folder}src`)).map((name) => `${folder}src/${name}`)];
  const built = await stat(`${folder}dist/index.d.ts`).catch(() => undefined);
  const newest = Math.max(...(await Promise.all(sources.map(async (file) => (await stat(file)).mtimeMs))));
  if (built && built.mtimeMs >= newest) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawn(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  const [code] = await once(build, 'exit');
  if (code !== 0) throw new Error(`@skillrun/skill did not build (tsc exited ${code})`);
}
