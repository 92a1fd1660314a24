import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// One supported Node: the one package.json's engines accept is the one the image runs, the one CI
// fetches (.ci/use-node), and the one these tests run on.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
const floor = semver.minVersion(engines);

describe('the supported Node', () => {
  it('is a current LTS line (24 or newer): older ones no longer get security fixes', () => {
    expect(floor?.major).toBeGreaterThanOrEqual(24);
  });

  it('runs these tests (.ci/run puts it first on the PATH)', () => {
    expect(
      semver.satisfies(process.versions.node, engines),
      `Node ${process.versions.node} runs the tests; package.json's engines want ${engines}: run . .ci/use-node first`,
    ).toBe(true);
  });

  it('is the one every stage of the image and CI start from', () => {
    const images = [...read('Dockerfile').matchAll(/^FROM\s+node:(\d+)[-\s]/gm)].map((match) =>
      Number(match[1]),
    );
    expect(images.length).toBeGreaterThan(0);
    expect(new Set(images)).toEqual(new Set([floor?.major]));
    const fetched = /^NODE_VERSION=(\S+)$/m.exec(read('.ci/use-node'))?.[1] ?? '';
    expect(semver.satisfies(fetched, engines)).toBe(true);
    expect(semver.major(fetched)).toBe(floor?.major);
  });
});
