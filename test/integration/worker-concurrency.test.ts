import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mostAtOnce } from '../support/most-at-once';
import { TestSystem } from '../support/system';

const SLEEPY = fileURLToPath(new URL('../fixtures/skills/sleepy', import.meta.url));
const SKILLS = 12;
const CONCURRENCY = 3;

/** `count` copies of the sleepy fixture under distinct names, in a folder of their own. */
function sleepyCopies(count: number): { dir: string; names: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'skillrun-many-skills-'));
  const definition = JSON.parse(readFileSync(join(SLEEPY, 'skill.json'), 'utf8'));
  const names = Array.from({ length: count }, (_, i) => `sleepy_${String(i + 1).padStart(2, '0')}`);
  for (const name of names) {
    cpSync(SLEEPY, join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'skill.json'), JSON.stringify({ ...definition, name }));
  }
  return { dir, names };
}

describe('WORKER_CONCURRENCY across the skills a worker hosts', () => {
  let system: TestSystem;
  const copies = sleepyCopies(SKILLS);

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: copies.dir });
    await system.addWorker({ WORKER_CONCURRENCY: String(CONCURRENCY) });
  });
  afterAll(async () => {
    await system?.stop();
    rmSync(copies.dir, { recursive: true, force: true });
  });

  it('runs every execution of many more skills than slots, never more than the total at once', async () => {
    const runs = await Promise.all(
      copies.names.flatMap((name) => [1, 2, 3].map(() => system.client.run(name, { ms: 30 }))),
    );
    const finals = runs.map(({ final }) => final);
    expect(finals.map((final) => final.status)).toEqual(finals.map(() => 'completed'));
    expect(mostAtOnce(finals)).toBeLessThanOrEqual(CONCURRENCY);
    expect(mostAtOnce(finals)).toBeGreaterThan(1);
  });
});
