import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine, ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const skillJson = {
  name: 'greeter',
  description: 'Greets.',
  category: 'test',
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  output: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
  mode: 'code',
  version: '1.0.0',
};
const greetingIn = (word: string) =>
  `export const execute = (input: { name: string }) => ({ greeting: \`${word}, \${input.name}!\` });\n`;

/** SKILLS_WATCH: a skill edited while its worker runs is invoked again with no restart. */
describe('a worker that watches its skills', () => {
  let folder: string;
  let system: TestSystem;
  let worker: ServiceProcess;
  const file = (name: string) => join(folder, 'greeter', name);
  const greeting = async () => (await system.client.run('greeter', { name: 'Ada' })).final.output;
  const notReloaded = (line: LogLine) => line.msg?.startsWith('skill greeter@1.0.0 not reloaded') === true;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'skillrun-watch-'));
    mkdirSync(file(''));
    writeFileSync(file('skill.json'), JSON.stringify(skillJson));
    writeFileSync(file('index.ts'), greetingIn('Hello'));
    system = await TestSystem.start();
    worker = await system.addWorker({ SKILLS_DIR: folder, SKILLS_WATCH: 'true' });
  });
  afterAll(async () => {
    await system?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('runs the edited module at the next invocations, with no restart', async () => {
    expect(await greeting()).toEqual({ greeting: 'Hello, Ada!' });
    writeFileSync(file('index.ts'), greetingIn('Bonjour'));
    await expect.poll(greeting, { timeout: 30_000 }).toEqual({ greeting: 'Bonjour, Ada!' });
    expect(worker.child.exitCode).toBeNull();
    expect(worker.logs.filter((line) => line.msg === 'worker ready')).toHaveLength(1);
  });

  it('keeps the previous load running when the new one does not compile, and says why in one line', async () => {
    writeFileSync(file('index.ts'), 'export const execute = ( => {');
    const line = await worker.waitForLog(notReloaded);
    expect(line.msg).toMatch(/it runs on as it was: .*greeter\/index\.ts does not compile/);
    expect(line.msg).not.toContain('\n');
    expect(await greeting()).toEqual({ greeting: 'Bonjour, Ada!' });
    writeFileSync(file('index.ts'), greetingIn('Hallo'));
    await expect.poll(greeting, { timeout: 30_000 }).toEqual({ greeting: 'Hallo, Ada!' });
  });

  it("publishes an edited skill.json: the gateway's descriptor follows", async () => {
    writeFileSync(file('skill.json'), JSON.stringify({ ...skillJson, description: 'Greets warmly.' }));
    await expect
      .poll(async () => (await system.client.request('/skills/greeter')).body.description, {
        timeout: 30_000,
      })
      .toBe('Greets warmly.');
  });

  it('refuses another version without a restart, and the hosted one runs on', async () => {
    const before = worker.logs.filter(notReloaded).length;
    writeFileSync(file('skill.json'), JSON.stringify({ ...skillJson, version: '2.0.0' }));
    await expect.poll(() => worker.logs.filter(notReloaded).length, { timeout: 30_000 }).toBe(before + 1);
    expect(worker.logs.filter(notReloaded).at(-1)?.msg).toContain(
      'it now defines greeter@2.0.0; the worker hosts another name or version after a restart',
    );
    expect(await greeting()).toEqual({ greeting: 'Hallo, Ada!' });
  });
});
