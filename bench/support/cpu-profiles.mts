import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './child.mjs';

/** The parts of V8's `.cpuprofile` (what `node --cpu-prof` writes) that are read here. */
interface CpuProfile {
  nodes: {
    id: number;
    hitCount?: number;
    children?: number[];
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  startTime: number;
  endTime: number;
}

/** Frames V8 names in brackets that are not code: time spent waiting. */
const IDLE = new Set(['(idle)', '(program)']);

/**
 * BENCH_PROFILE=1: every child runs under `--cpu-prof`, writing a profile per thread when it exits
 * (the services and baselines stop on SIGTERM, so they exit normally and write it). At the end,
 * the top frames by self time, per kind of process (all its profiles of the run together), so
 * that docs/performance.md's "where the time goes" is read off a run rather than guessed.
 */
export class CpuProfiles {
  private constructor(readonly dir: string) {}

  static async create(): Promise<CpuProfiles> {
    return new CpuProfiles(await mkdtemp(join(tmpdir(), 'skillrun-bench-profiles-')));
  }

  /** Node's flags for a child named `name`: its profiles go to a folder of that name. */
  flagsFor(name: string): string[] {
    return ['--cpu-prof', `--cpu-prof-dir=${join(this.dir, name)}`];
  }

  /** The top `count` frames by self time of each kind of process, as Markdown. */
  async report(count = 15): Promise<string> {
    const lines = [`\n## Where the time goes (BENCH_PROFILE; profiles in ${this.dir})\n`];
    lines.push(
      'Figures measured under the profiler are slower than without it: read these, not the table, here.\n',
    );
    for (const name of (await readdir(this.dir)).sort()) {
      const files = (await readdir(join(this.dir, name))).filter((file) => file.endsWith('.cpuprofile'));
      const selfMs = new Map<string, number>();
      const originMs = new Map<string, number>();
      let busyMs = 0;
      let startupMs = 0;
      let wallMs = 0;
      for (const file of files) {
        const profile = JSON.parse(await readFile(join(this.dir, name, file), 'utf8')) as CpuProfile;
        const hits = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
        const msPerHit = hits === 0 ? 0 : (profile.endTime - profile.startTime) / 1000 / hits;
        wallMs += (profile.endTime - profile.startTime) / 1000;
        const loading = loadingNodes(profile);
        for (const { id, hitCount = 0, callFrame } of profile.nodes) {
          if (hitCount === 0 || IDLE.has(callFrame.functionName)) continue;
          if (loading.has(id)) {
            startupMs += hitCount * msPerHit;
            continue;
          }
          const frame = frameOf(callFrame);
          selfMs.set(frame, (selfMs.get(frame) ?? 0) + hitCount * msPerHit);
          const origin = originOf(callFrame);
          originMs.set(origin, (originMs.get(origin) ?? 0) + hitCount * msPerHit);
          busyMs += hitCount * msPerHit;
        }
      }
      lines.push(
        `### ${name}: ${files.length} thread profile(s), busy ${(busyMs / 1000).toFixed(1)} s of ${(wallMs / 1000).toFixed(1)} s, ` +
          `besides ${(startupMs / 1000).toFixed(1)} s loading its modules (left out below)\n`,
      );
      const share = (ms: number) => `${((100 * ms) / busyMs).toFixed(1)} %`;
      const origins = [...originMs].sort((a, b) => b[1] - a[1]).slice(0, 8);
      lines.push(`By origin: ${origins.map(([origin, ms]) => `${origin} ${share(ms)}`).join(', ')}.\n`);
      lines.push('| self | frame |', '| ---: | --- |');
      for (const [frame, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, count))
        lines.push(`| ${share(ms)} | ${frame} |`);
      lines.push('');
    }
    return lines.join('\n');
  }
}

/**
 * The frames run while a module is evaluated (under Node's ESM module job): the process starting,
 * which the bench's steady load is not about.
 */
function loadingNodes(profile: CpuProfile): Set<number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const loading = new Set<number>();
  const mark = (id: number) => {
    loading.add(id);
    for (const child of byId.get(id)?.children ?? []) mark(child);
  };
  for (const node of profile.nodes) if (node.callFrame.url.endsWith('modules/esm/module_job')) mark(node.id);
  return loading;
}

/**
 * Where a frame's code comes from: a dependency (by package), Node itself, our bundle (its path),
 * native code (no script: the bindings' writes and reads), or V8's garbage collector.
 */
function originOf({ functionName, url }: CpuProfile['nodes'][number]['callFrame']): string {
  if (!url) return functionName.startsWith('(') ? functionName : 'native';
  if (url.startsWith('node:')) return 'node';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return inPackage?.[1] ?? url.replace(/^file:\/\//, '').replace(repoRoot, '');
}

/** A frame as `function (where:line)`, paths relative to the repository, dependencies by package. */
function frameOf({ functionName, url, lineNumber }: CpuProfile['nodes'][number]['callFrame']): string {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const path = url.replace(/^file:\/\//, '').replace(repoRoot, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const where = inPackage ? `${inPackage[1]}: ${inPackage[2]}` : path;
  return `${name} (${where}:${lineNumber + 1})`;
}
