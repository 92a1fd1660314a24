import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { ConsoleBrowser, type ConsoleTab } from '../support/console-browser';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/auth-skills', import.meta.url));

/** The console hides what a role may not do, in Chromium: a viewer's pages carry no payload. */
describe('the console by role, in a browser', () => {
  const ui = ConsoleBrowser.use(() => TestSystem.start({ SKILLS_DIR }));
  let client: Client;
  const keys: Record<string, string> = {};
  const secret = `secret-${randomUUID()}`;
  let executionId = '';

  async function open(name: string, hash: string): Promise<ConsoleTab> {
    const tab = await ui.open();
    await tab.signIn(keys[name] ?? '');
    await tab.page.goto(`${ui.origin}/console/${hash}`);
    return tab;
  }

  beforeAll(async () => {
    await ui.system.addWorker({ SKILLS_DIR });
    client = ui.system.client;
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

  it("shows a viewer another caller's execution without its inputs or output, and no action", async () => {
    const { page } = await open('vera', `#/executions/open_echo/${executionId}`);
    expect(await page.locator('#who').textContent()).toBe('vera (viewer)');
    await page.locator('#payloads-hidden').waitFor();
    await page.getByText('completed').first().waitFor();
    expect(await page.locator('main').textContent()).not.toContain(secret);
    expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Workers' }).count()).toBe(1);
    await page.goto(`${ui.origin}/console/#/skills/open_echo`);
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
    await page.goto(`${ui.origin}/console/#/skills/open_echo`);
    await page.getByRole('button', { name: 'Pause skill open_echo' }).waitFor();
  });
});
