import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { CONSOLE_HOST, ConsoleTab, launchChromium } from '../support/console-browser';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/auth-skills', import.meta.url));

/** The console hides what a role may not do, in Chromium: a viewer's pages carry no payload. */
describe('the console by role, in a browser', () => {
  let system: TestSystem;
  let client: Client;
  let browser: Browser;
  let origin: string;
  const keys: Record<string, string> = {};
  let tab: ConsoleTab | undefined;
  const secret = `secret-${randomUUID()}`;
  let executionId = '';

  async function open(name: string, hash: string): Promise<ConsoleTab> {
    tab = await ConsoleTab.open(browser, origin);
    await tab.signIn(keys[name] ?? '');
    await tab.page.goto(`${origin}/console/${hash}`);
    return tab;
  }

  beforeAll(async () => {
    [system, browser] = await Promise.all([TestSystem.start({ SKILLS_DIR }), launchChromium()]);
    await system.addWorker({ SKILLS_DIR });
    client = system.client;
    origin = system.gateway.url.replace('127.0.0.1', CONSOLE_HOST);
    const roles = { alice: undefined, vera: 'viewer', otto: 'operator' };
    for (const [caller, role] of Object.entries(roles)) {
      const answer = await client.request<{ key: string }>('/admin/keys', {
        json: { caller_id: caller, scopes: ['skill:invoke', 'skill:read'], ...(role ? { role } : {}) },
        headers: ADMIN_HEADERS,
      });
      keys[caller] = answer.body.key;
    }
    const started = await client.invoke(
      'open_echo',
      { text: secret },
      { caller: { id: 'alice', type: 'user' } },
      {
        'x-api-key': keys.alice ?? '',
      },
    );
    executionId = String(started.body.execution_id);
    await client.waitForEnd('open_echo', executionId, 20_000, { 'x-api-key': keys.alice ?? '' });
  });
  afterEach(async () => {
    if (!tab) return;
    expect(tab.foreignRequests).toEqual([]);
    expect(tab.pageErrors).toEqual([]);
    await tab.close();
    tab = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("shows a viewer another caller's execution without its inputs or output, and no action", async () => {
    const { page } = await open('vera', `#/executions/open_echo/${executionId}`);
    expect(await page.locator('#who').textContent()).toBe('vera (viewer)');
    await page.locator('#payloads-hidden').waitFor();
    await page.getByText('completed').first().waitFor();
    expect(await page.locator('main').textContent()).not.toContain(secret);
    expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Workers' }).count()).toBe(1);
    await page.goto(`${origin}/console/#/skills/open_echo`);
    await page
      .getByRole('heading', { name: /open_echo/ })
      .first()
      .waitFor();
    expect(await page.getByRole('button', { name: /Pause skill/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Try|Invoke/ }).count()).toBe(0);
  });

  it('shows an operator the payloads, replay and the pause control', async () => {
    const { page } = await open('otto', `#/executions/open_echo/${executionId}`);
    expect(await page.locator('#who').textContent()).toBe('otto (operator)');
    await page.getByRole('button', { name: 'Replay' }).waitFor();
    await page.getByText(secret).first().waitFor();
    await page.goto(`${origin}/console/#/skills/open_echo`);
    await page.getByRole('button', { name: 'Pause skill open_echo' }).waitFor();
  });
});
