import { beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser } from '../support/console-browser';
import { ADMIN_HEADERS, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

/** The console's audit log page, in Chromium, against a real gateway. */
describe("the console's audit log", () => {
  const ui = ConsoleBrowser.use(() => TestSystem.start());
  let operatorKey: string;

  beforeAll(async () => {
    const { system } = ui;
    operatorKey = await system.client.createKey('operator-7');
    // Acts that succeed and acts that are refused.
    await system.client.request('/admin/keys', {
      json: { caller_id: 'new-service', scopes: ['skill:invoke'], name: 'billing' },
      headers: ADMIN_HEADERS,
    });
    await system.client.request('/admin/keys', {
      json: { caller_id: 'operator-7', scopes: ['admin'] },
      headers: { 'x-api-key': operatorKey },
    });
    await system.client.request('/skills/billing.charge/pause', {
      method: 'POST',
      headers: { 'x-api-key': operatorKey },
    });
    await system.client.request('/schedules/sch_0000000000000000000000', { method: 'DELETE' });
  });

  it('shows an admin every act, refusals included, and filters them by outcome and actor', async () => {
    const tab = await ui.open();
    await tab.signIn(TEST_ADMIN_KEY);
    const { page } = tab;
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const rows = page.locator('tr[data-audit-id]');
    await rows.first().waitFor();
    // The refused acts have their outcome as soon as they were answered; wait for the last of them.
    await expect
      .poll(async () => (await page.locator('table.audit').textContent()) ?? '')
      .toContain('schedule.delete');
    const log = (await page.locator('table.audit').textContent()) ?? '';
    expect(log).toContain('key.create');
    expect(log).toContain('caller_id=new-service');
    expect(log).toContain('ACCESS_DENIED');
    expect(log).toContain('no credentials');
    expect(log).not.toContain(operatorKey);
    expect(await tab.accessibilityViolations()).toEqual([]);
    await tab.screenshot('audit');

    await page.getByLabel('Outcome').selectOption('refused');
    await page.getByLabel('Actor (caller id)').fill('operator-7');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/#\/audit\?.*outcome=refused/);
    await expect.poll(async () => page.locator('tr[data-audit-id]').count()).toBe(2);
    const refused = await page.locator('tr[data-audit-id]').allTextContents();
    for (const row of refused) {
      expect(row).toContain('operator-7');
      expect(row).toContain('refused');
    }
    expect(refused.join('\n')).toContain('skill.pause');
    expect(refused.join('\n')).toContain('key.create');
  });

  it('is not offered to a caller without the admin scope, and refused if asked for', async () => {
    const tab = await ui.open();
    await tab.signIn(operatorKey);
    const { page } = tab;
    expect(await page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await page.goto(`${ui.origin}/console/#/audit`);
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByText('The audit log needs the admin role').waitFor();
    expect(await page.locator('tr[data-audit-id]').count()).toBe(0);
  });
});
