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
    files: Record<string, string> = {},
  ): Promise<ServiceProcess> {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-bad-skill-'));
    await mkdir(join(dir, 'broken'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, 'broken', path, '..'), { recursive: true });
      await writeFile(join(dir, 'broken', path), text);
    }
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
      /\[mode\] must be one of \["code","llm","composite","knowledge","task"\]/,
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

  it('names the document and line a knowledge skill cannot read, and a schema that does not fit', async () => {
    const knowledge = { ...validSkill, mode: 'knowledge' };
    const notes = { 'documents/notes.jsonl': '{"text": "fine"}\n{"text": \n' };
    const cases: [unknown, Record<string, string>, RegExp][] = [
      [knowledge, notes, /broken\/skill\.json: notes\.jsonl line 2: not JSON/],
      [knowledge, {}, /broken\/skill\.json: the documents folder .* cannot be read/],
      [
        { ...knowledge, input: { type: 'object', required: ['topic'] } },
        { 'documents/notes.jsonl': '{"text": "fine"}' },
        /field "input" must accept a knowledge query/,
      ],
    ];
    for (const [skill, files, message] of cases) {
      const worker = await workerWith(skill, undefined, files);
      expect(await worker.exitCode()).toBe(1);
      expect(worker.stderr).toMatch(message);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
