import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, ServiceProcess } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const broken = fileURLToPath(new URL('../fixtures/broken-composites', import.meta.url));

describe('a worker refuses a composite whose calls are unsound, naming the step and field', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.stop());

  async function refusal(folder: string): Promise<string> {
    const worker = ServiceProcess.spawn('worker', {
      SKILLS_DIR: [fixtureSkills, join(broken, folder)].join(delimiter),
      REDIS_URL: redis.url,
    });
    expect(await worker.exitCode()).toBe(1);
    expect(worker.stderr).not.toMatch(/\n\s+at /);
    return worker.stderr;
  }

  it('a step whose skill "calls" does not list', async () => {
    const stderr = await refusal('not_listed');
    expect(stderr).toContain(join('not_listed', 'skill.json'));
    expect(stderr).toMatch(/step "say".*"echo".*calls/);
  });

  it('a call to a skill that exists nowhere', async () => {
    expect(await refusal('missing_callee')).toMatch(/"no_such_skill", which does not exist/);
  });

  it('a call cycle, named', async () => {
    expect(await refusal('cycle')).toMatch(/ping -> pong -> ping/);
  });

  it('a template reading a field the upstream output schema does not have', async () => {
    const stderr = await refusal('unknown_field');
    expect(stderr).toMatch(/step "say"/);
    expect(stderr).toMatch(/"dreams"/);
  });

  it('a template feeding a value of the wrong type into the next input', async () => {
    const stderr = await refusal('wrong_type');
    expect(stderr).toMatch(/step "say" input "text": gets integer, expects string/);
  });

  it('a template that tries to run code, which is never run', async () => {
    const stderr = await refusal('code_injection');
    expect(stderr).toContain(join('code_injection', 'skill.json'));
    expect(stderr).toMatch(/\/pipeline\/0\/input\/text/);
  });
});
