import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../support/service-process';

const validSkill = {
  name: 'ok_skill',
  description: 'fine',
  category: 'test',
  input: { type: 'object' },
  output: { type: 'object' },
  mode: 'code',
};

describe('a worker refuses to start on a skill it cannot host', () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function workerWith(
    skill: unknown,
    index = 'export const execute = () => ({});',
  ): Promise<ServiceProcess> {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-bad-skill-'));
    await mkdir(join(dir, 'broken'));
    await writeFile(
      join(dir, 'broken', 'skill.json'),
      typeof skill === 'string' ? skill : JSON.stringify(skill),
    );
    await writeFile(join(dir, 'broken', 'index.ts'), index);
    // Nothing listens on port 1: the worker must fail on its skills before it ever needs Redis.
    return ServiceProcess.spawn('worker', { SKILLS_DIR: dir, REDIS_URL: 'redis://127.0.0.1:1' });
  }

  const cases: [string, unknown, RegExp][] = [
    ['a bad name', { ...validSkill, name: 'Bad-Name' }, /\[name\] must match pattern/],
    [
      'an unknown mode',
      { ...validSkill, mode: 'python' },
      /\[mode\] must be one of \["code","llm","composite"\]/,
    ],
    ['a missing description', { ...validSkill, description: undefined }, /\[description\] is required/],
    ['an undeclared field', { ...validSkill, colour: 'red' }, /\[colour\] is not a declared property/],
    ['an input that is not JSON Schema', { ...validSkill, input: { type: 'nope' } }, /field "input"/],
    ['a file that is not JSON', '{ "name": ', /not valid JSON/],
  ];

  for (const [what, skill, message] of cases) {
    it(`names the file and the field for ${what}`, async () => {
      const worker = await workerWith(skill);
      expect(await worker.exitCode()).toBe(1);
      expect(worker.stderr).toContain(join('broken', 'skill.json'));
      expect(worker.stderr).toMatch(message);
      expect(worker.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('names the module when a code skill does not compile', async () => {
    const worker = await workerWith(validSkill, 'export const execute = ( => {');
    expect(await worker.exitCode()).toBe(1);
    expect(worker.stderr).toMatch(/broken\/index\.ts does not compile/);
  });
});
