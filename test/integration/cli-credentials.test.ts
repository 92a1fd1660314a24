import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { type ProviderServer, startProviderServer } from '../support/client-provider-server';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const expectCode = (run: CliRun, code: number) =>
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);

/**
 * `skillrun --api-key` against a service that names itself otherwise than the CLI reached it: the
 * gateway's default links say localhost, the CLI is given 127.0.0.1 (as its own default once said).
 */
describe('skillrun sends its credentials wherever the service says it is, and says when it does not', () => {
  let system: TestSystem;
  let provider: ProviderServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    // No PUBLIC_BASE_URL: the gateway's default. Restricted skills: nothing runs without a key.
    [system, provider] = await Promise.all([
      TestSystem.start({ PUBLIC_BASE_URL: '', DEFAULT_SKILL_ACCESS: 'restricted' }),
      startProviderServer(),
    ]);
    await system.addWorker({ SKILLS_DIR: fixtureSkills });
    const key = await system.client.createKey('alice');
    env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_API_KEY: key };
  });
  afterAll(async () => {
    await provider?.close();
    await system?.stop();
  });

  it("invokes a restricted skill through the service's localhost links with the key, as the key's caller", async () => {
    const described = await runSkillrun(['describe', 'echo', '--json'], { env });
    expectCode(described, 0);
    const port = new URL(system.gateway.url).port;
    expect(JSON.parse(described.stdout).endpoint.url).toMatch(
      new RegExp(`^http://localhost:${port}/skills/echo/invoke`),
    );

    const run = await runSkillrun(['invoke', 'echo', 'text=hi', '--wait', '--json'], { env });
    expectCode(run, 0);
    expect(run.stderr).not.toContain('warning');
    const execution = JSON.parse(run.stdout) as { execution_id: string; status: string };
    expect(execution.status).toBe('completed');

    const listed = await runSkillrun(['executions', '--skill', 'echo', '--json'], { env });
    expectCode(listed, 0);
    const page = JSON.parse(listed.stdout) as { executions: { execution_id: string }[] };
    expect(page.executions.map((entry) => entry.execution_id)).toContain(execution.execution_id);
  });

  it('warns when it keeps the key from another origin, and the refusal says why instead of "revoked"', async () => {
    const run = await runSkillrun(['invoke', provider.descriptorUrl, 'name=Ada'], { env });
    expectCode(run, 4);
    expect(run.stderr).toContain(`warning: your credentials were not sent to ${provider.url}`);
    expect(run.stderr).toContain('AUTH_REQUIRED');
    expect(run.stderr).toContain(`hint: Your credentials were not sent to ${provider.url}`);
    expect(run.stderr).not.toContain('revoked');
    expect(provider.requests.some((request) => request.headers['x-api-key'] !== undefined)).toBe(false);
  });
});
