import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { ADMIN_HEADERS, fixtureSkills, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const llmSkills = fileURLToPath(new URL('../fixtures/llm-skills', import.meta.url));
const LLM_KEY = 'sk-llm-secret-3b9f0c1d7e';
const COOKIE_SECRET = 'cookie-secret-77aa41';
const SKILL_SECRET = 'skill-secret-5d2e90';

describe('structured logs', () => {
  let system: TestSystem;
  let llm: FakeLlm;

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start({
      SKILLS_DIR: [fixtureSkills, llmSkills].join(delimiter),
      LOG_LEVEL: 'trace',
    });
    await system.addWorker({ LLM_BASE_URL: llm.url, LLM_API_KEY: LLM_KEY, LLM_MODEL: 'fake-model' });
  });
  afterAll(async () => {
    await system?.stop();
    await llm?.close();
  });

  it('name the execution, skill and trace on every line about an execution, and never a secret', async () => {
    const { client } = system;
    const created = await client.request<{ key: string }>('/admin/keys', {
      headers: ADMIN_HEADERS,
      json: { caller_id: 'tester', scopes: ['skill:invoke', 'skill:read'] },
    });
    expect(created.status).toBe(201);
    const apiKey = created.body.key;
    const auth = { 'x-api-key': apiKey, cookie: `session=${COOKIE_SECRET}` };
    const credentials = { caller: { id: 'tester', type: 'service', credentials: { api_key: apiKey } } };
    // A provider that echoes the key it was sent back in its error, as OpenAI's does.
    llm.script(
      { status: 401, body: { error: { message: `Incorrect API key provided: ${LLM_KEY}` } } },
      { json: { summary: 'Short.', words: 1 } },
    );

    const runs = [
      await run('tiny_summary', { text: 'first' }, credentials, auth),
      await run('tiny_summary', { text: 'second' }, credentials, auth),
      await run('echo', { text: 'hi' }, {}, { authorization: `Bearer ${apiKey}` }),
      await run(
        'chatty',
        {
          fields: {
            note: 'visible',
            api_key: SKILL_SECRET,
            password: SKILL_SECRET,
            headers: { authorization: `Bearer ${SKILL_SECRET}`, cookie: SKILL_SECRET },
          },
        },
        credentials,
        auth,
      ),
    ];
    expect(runs.map((execution) => execution.status)).toEqual([
      'failed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(runs[0]?.error?.code).toBe('TOOL_NOT_AVAILABLE');

    const [worker] = system.workers;
    const linesAbout = () => (worker?.logs ?? []).filter((line) => line.execution_id !== undefined);
    // Lines are written in batches (at most 100 ms late): wait for every execution's end line.
    await expect
      .poll(() =>
        runs.every((run) =>
          linesAbout().some(
            (line) => line.execution_id === run.execution_id && /^execution /.test(String(line.msg)),
          ),
        ),
      )
      .toBe(true);
    const aboutExecutions = linesAbout();
    for (const execution of runs) {
      expect(aboutExecutions.some((line) => line.execution_id === execution.execution_id)).toBe(true);
    }
    for (const line of aboutExecutions) {
      const execution = runs.find((candidate) => candidate.execution_id === line.execution_id);
      expect(line).toMatchObject({ skill_id: execution?.skill_id, trace_id: execution?.trace_id });
    }
    const chatty = aboutExecutions.find((line) => line.msg === 'chatty says');
    expect(chatty).toMatchObject({ note: 'visible', api_key: '[redacted]', password: '[redacted]' });

    const everything = [system.gateway.process, ...system.workers]
      .flatMap((service) => [service.stderr, ...service.logs.map((line) => JSON.stringify(line))])
      .join('\n');
    expect(everything).toContain('execution completed');
    for (const secret of [apiKey, TEST_ADMIN_KEY, LLM_KEY, COOKIE_SECRET, SKILL_SECRET]) {
      expect(everything).not.toContain(secret);
    }
  });

  /** Invokes and polls the status (with the same credentials) until the execution ends. */
  async function run(
    skillId: string,
    inputs: unknown,
    extra: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<Execution> {
    const accepted = await system.client.invoke(skillId, inputs, extra, headers);
    expect(accepted.status).toBe(202);
    const path = `/skills/${skillId}/status/${String(accepted.body.execution_id)}`;
    let execution: Execution | undefined;
    await expect
      .poll(
        async () => {
          execution = (await system.client.request<Execution>(path, { headers })).body;
          return ['completed', 'failed', 'timeout'].includes(execution.status);
        },
        { timeout: 20_000, interval: 25 },
      )
      .toBe(true);
    return execution as Execution;
  }
});
