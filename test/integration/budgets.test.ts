import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/agent-mcp';
import { CONSOLE_HOST, ConsoleTab, launchChromium } from '../support/console-browser';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { repoRoot, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const budgetSkills = fileURLToPath(new URL('../fixtures/budget-skills', import.meta.url));
const SKILLS_DIR = [join(repoRoot, 'skills'), budgetSkills].join(delimiter);
const SUMMARY = { json: { summary: 'Short.', words: 1 } };

/** $2 per million prompt tokens, $10 per million completion tokens: the worker's price table. */
const PRICES = { LLM_INPUT_USD_PER_MTOK: '2', LLM_OUTPUT_USD_PER_MTOK: '10' };

interface BudgetDetails {
  limit: string;
  step?: string;
  spent: { tokens: number; cost_usd: number; steps: number };
}

describe('cost in money and budgets (context.budget), over HTTP and MCP', () => {
  let system: TestSystem;
  let llm: FakeLlm;
  let mcp: McpClient;
  let metricsUrl: string;

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start({
      SKILLS_DIR,
      LIMITS: JSON.stringify({ callers: { thrifty: { daily_budget_usd: 0.003 } } }),
    });
    const worker = await system.addWorker({
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'sk-test-budget',
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      WORKER_CONCURRENCY: '8',
      ...PRICES,
    });
    const ready = worker.logs.find((line) => line.msg === 'worker ready');
    metricsUrl = `http://127.0.0.1:${ready?.metrics_port}/metrics`;
    mcp = await connectMcp(system.gateway.url, { 'x-api-key': await system.client.createKey('agent-bob') });
  });
  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await system?.stop();
    await llm?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  it("prices an execution's tokens at the price table, in usage.cost_usd and the cost metric", async () => {
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const { final } = await system.client.run('budget_summary', { text: 'A fox.' });
    expect(final.status).toBe('completed');
    // 1000 × $2/M + 200 × $10/M
    expect(final.usage).toMatchObject({ total_tokens: 1200, cost_usd: 0.004 });
    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).toContain('skillrun_cost_usd_total{skill="budget_summary",caller="tester"} 0.004');
  });

  it("counts a code skill's declared cost per run (skill.json cost_usd)", async () => {
    const { final } = await system.client.run('paid_lookup', { query: 'fox' });
    expect(final.status).toBe('completed');
    expect(final.usage).toMatchObject({ total_tokens: 0, models: [], cost_usd: 0.25 });
  });

  it("adds a composite's steps' cost to its own", async () => {
    llm.script(
      { ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } },
      { ...SUMMARY, usage: { prompt_tokens: 500, completion_tokens: 100 } },
    );
    const { final } = await system.client.run('summary_chain', { text: 'A fox jumps.' });
    expect(final.status).toBe('completed');
    expect(final.usage).toMatchObject({ total_tokens: 1800, cost_usd: 0.006 });
  });

  it("caps an llm step's provider call at what is left of max_tokens, and stops it at the budget", async () => {
    // The answer is cut off at max_tokens (not JSON): its repair round would spend past the budget.
    llm.script({
      content: '{"summary": "cut',
      finishReason: 'length',
      usage: { prompt_tokens: 300, completion_tokens: 1700 },
    });
    const { final } = await system.client.run(
      'budget_summary',
      { text: 'A fox.' },
      { context: { budget: { max_tokens: 2000 } } },
    );
    expect(llm.requests).toHaveLength(1);
    const cap = llm.requests[0]?.body.max_tokens ?? 0;
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(2000);
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('BUDGET_EXCEEDED');
    const details = final.error?.details as BudgetDetails;
    expect(details.limit).toBe('max_tokens');
    expect(details.spent.tokens).toBe(2000);
    expect(final.usage?.total_tokens).toBe(2000);
  });

  it('stops an LLM call in flight at max_duration_ms, and aborts it at the provider', async () => {
    const abortedBefore = llm.aborted;
    llm.script({ ...SUMMARY, delayMs: 8000 });
    const { final } = await system.client.run(
      'budget_summary',
      { text: 'A slow fox.' },
      { context: { budget: { max_duration_ms: 500 } } },
    );
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'BUDGET_EXCEEDED', details: { limit: 'max_duration_ms' } });
    await expect.poll(() => llm.aborted, { timeout: 5000 }).toBeGreaterThan(abortedBefore);
  });

  it('does not start the steps past max_steps: the composite fails with what was spent', async () => {
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const { final } = await system.client.run(
      'summary_chain',
      { text: 'A fox jumps.' },
      { context: { budget: { max_steps: 1 } } },
    );
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('BUDGET_EXCEEDED');
    const details = final.error?.details as BudgetDetails;
    expect(details).toMatchObject({ limit: 'max_steps', step: 'second', spent: { steps: 1, tokens: 1200 } });
    expect(details.spent.cost_usd).toBe(0.004);
    expect(llm.requests).toHaveLength(1);
    expect(final.usage).toMatchObject({ total_tokens: 1200, cost_usd: 0.004 });
  });

  it('lets only one of two parallel steps take the last of a budget: the spend is atomic', async () => {
    // A slow answer, so that both steps would be in flight at once if both were let through (the
    // second, unscripted, would fail LLM_PROVIDER_ERROR and be counted in the requests).
    llm.script({ ...SUMMARY, delayMs: 500, usage: { prompt_tokens: 300, completion_tokens: 100 } });
    const { final } = await system.client.run(
      'pair_summary',
      { a: 'The first text.', b: 'The second text.' },
      { context: { budget: { max_tokens: 3000 } } },
    );
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('BUDGET_EXCEEDED');
    expect(final.error?.details).toMatchObject({ limit: 'max_tokens' });
    // The step that won is not stopped; what the tree spent stays within the budget.
    await expect.poll(() => llm.requests.filter((request) => request.answeredAt).length).toBe(1);
    expect(llm.requests).toHaveLength(1);
    const winner = llm.requests[0]?.body.max_tokens ?? 0;
    expect(winner).toBeGreaterThan(0);
    expect(winner).toBeLessThan(3000);
    const steps = final.steps ?? [];
    const spent = await Promise.all(
      steps.flatMap((step) =>
        step.execution_id ? [system.client.waitForEnd('budget_summary', step.execution_id)] : [],
      ),
    );
    const codes = spent.map(({ final: step }) => step.error?.code ?? step.status).sort();
    expect(codes).toEqual(['BUDGET_EXCEEDED', 'completed']);
    const tokens = spent.reduce((sum, { final: step }) => sum + (step.usage?.total_tokens ?? 0), 0);
    expect(tokens).toBe(400);
  });

  it("says what a tool call cost in the MCP result's _meta", async () => {
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const result = await mcp.callTool(
      { name: 'budget_summary', arguments: { text: 'A fox.' } },
      CallToolResultSchema,
    );
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['io.skillrun/usage']).toMatchObject({ total_tokens: 1200, cost_usd: 0.004 });
  });

  it("takes a tool call's budget in its _meta, and answers a bad one as the tool's error", async () => {
    llm.script({
      content: '{"summary": "cut',
      finishReason: 'length',
      usage: { prompt_tokens: 300, completion_tokens: 1700 },
    });
    const capped = await mcp.callTool(
      {
        name: 'budget_summary',
        arguments: { text: 'A fox.' },
        _meta: { 'io.skillrun/budget': { max_tokens: 2000 } },
      },
      CallToolResultSchema,
    );
    expect(capped.isError).toBe(true);
    expect(JSON.stringify(capped.content)).toContain('BUDGET_EXCEEDED');
    expect(llm.requests.at(-1)?.body.max_tokens).toBeLessThan(2000);
    const asked = llm.requests.length;
    const bad = await mcp.callTool(
      {
        name: 'budget_summary',
        arguments: { text: 'A fox.' },
        _meta: { 'io.skillrun/budget': { max_tokens: -1 } },
      },
      CallToolResultSchema,
    );
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('INVALID_INPUT');
    expect(llm.requests).toHaveLength(asked);
  });

  it("refuses a caller whose daily budget is spent at admission: 429 BUDGET_EXCEEDED with the budget's headers", async () => {
    const headers = { 'x-api-key': await system.client.createKey('thrifty') };
    const caller = { caller: { id: 'thrifty', type: 'user' } };
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const first = await system.client.invoke('budget_summary', { text: 'A fox.' }, caller, headers);
    expect(first.status).toBe(202);
    expect(first.headers.get('ratelimit-policy')).toBe('"daily-budget";q=3000;w=86400;qu="usd-micros"');
    expect(first.headers.get('ratelimit')).toMatch(/^"daily-budget";r=3000;t=\d+$/);
    const { final } = await system.client.waitForEnd(
      'budget_summary',
      String(first.body.execution_id),
      20_000,
      headers,
    );
    expect(final.usage?.cost_usd).toBe(0.004);

    const refused = await system.client.invoke('budget_summary', { text: 'Again.' }, caller, headers);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: 'BUDGET_EXCEEDED', details: { policy: 'daily-budget', spent_usd: 0.004 } },
    });
    expect(refused.headers.get('ratelimit')).toMatch(/^"daily-budget";r=0;t=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Over MCP, the same caller's tool call is refused as a result a model can read.
    const thrifty = await connectMcp(system.gateway.url, headers);
    try {
      const result = await thrifty.callTool(
        { name: 'budget_summary', arguments: { text: 'Again.' } },
        CallToolResultSchema,
      );
      expect(result.isError).toBe(true);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'BUDGET_EXCEEDED' } });
    } finally {
      await thrifty.close().catch(() => {});
    }
    expect(llm.requests).toHaveLength(1);
  });

  it('says what an A2A task cost in its metadata', async () => {
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const sent = await system.client.request<{
      result?: { task?: { status: { state: string }; metadata: Record<string, unknown> } };
    }>('/a2a', {
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { text: 'A fox.' } }],
            metadata: { skill_id: 'budget_summary' },
          },
        },
      },
    });
    expect(sent.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.body.result?.task?.metadata.usage).toMatchObject({ total_tokens: 1200, cost_usd: 0.004 });
  });

  it('shows cost in the console (Chromium): per execution, in the list, and per skill over the last day', async () => {
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const { final } = await system.client.run('budget_summary', { text: 'A console fox.' });
    expect(final.usage?.cost_usd).toBe(0.004);
    const browser = await launchChromium();
    try {
      const tab = await ConsoleTab.open(browser, system.gateway.url.replace('127.0.0.1', CONSOLE_HOST));
      const { page } = tab;
      await tab.signIn(TEST_ADMIN_KEY);
      await page.goto(`${tab.origin}/console/#/executions/budget_summary/${final.execution_id}`);
      const cost = page.locator('dt', { hasText: /^Cost$/ }).locator('xpath=following-sibling::dd[1]');
      expect(await cost.textContent()).toBe('$0.004');
      await page.goto(`${tab.origin}/console/#/executions?skill_id=budget_summary`);
      const row = page.locator(`tr[data-execution-id="${final.execution_id}"]`);
      await row.waitFor();
      expect(await row.locator('td').nth(7).textContent()).toBe('$0.004');
      // Every priced run of the skill in this file so far: the first test's, the daily budget's, this one.
      await page.goto(`${tab.origin}/console/#/skills/budget_summary`);
      const total = page.locator('[data-cost-total]');
      await total.waitFor();
      expect(Number(await total.getAttribute('data-cost-total'))).toBeGreaterThanOrEqual(0.004);
      expect(
        await page.getByRole('img', { name: /budget_summary cost in US dollars per hour/ }).count(),
      ).toBe(1);
      expect(await tab.accessibilityViolations()).toEqual([]);
      expect(tab.pageErrors).toEqual([]);
      await tab.close();
    } finally {
      await browser.close();
    }
  });

  it("holds a key's caller to the key's own daily budget (daily_budget_usd on POST /admin/keys)", async () => {
    const created = await system.client.request<{ key: string; record: Record<string, unknown> }>(
      '/admin/keys',
      {
        json: { caller_id: 'keyed-saver', scopes: ['skill:invoke', 'skill:read'], daily_budget_usd: 0.001 },
        headers: { 'x-api-key': TEST_ADMIN_KEY },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.record.daily_budget_usd).toBe(0.001);
    const headers = { 'x-api-key': created.body.key };
    const caller = { caller: { id: 'keyed-saver', type: 'user' } };
    llm.script({ ...SUMMARY, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const first = await system.client.invoke('budget_summary', { text: 'A fox.' }, caller, headers);
    expect(first.status).toBe(202);
    expect(first.headers.get('ratelimit-policy')).toBe('"daily-budget";q=1000;w=86400;qu="usd-micros"');
    await system.client.waitForEnd('budget_summary', String(first.body.execution_id), 20_000, headers);
    const refused = await system.client.invoke('budget_summary', { text: 'Again.' }, caller, headers);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: 'BUDGET_EXCEEDED', details: { budget_usd: 0.001 } },
    });
  });

  it('refuses a budget with an unknown limit or a negative one (400, naming the field)', async () => {
    for (const budget of [{ max_tokenz: 10 }, { max_cost_usd: -1 }, {}]) {
      const answer = await system.client.invoke('budget_summary', { text: 'x' }, { context: { budget } });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('budget');
    }
    expect(llm.requests).toHaveLength(0);
  });
});
