import { beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, type ConsoleTab } from '../support/console-browser';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = `${repoRoot}test/fixtures/approval-skills`;

/** The console's approvals page, in Chromium: pending approvals for their approvers, decided there. */
describe('the console shows pending approvals, and an approver decides them there', () => {
  const ui = ConsoleBrowser.use(() => TestSystem.start({ SKILLS_DIR }));
  const keys: Record<string, string> = {};

  async function open(caller: string): Promise<ConsoleTab> {
    const tab = await ui.open('/console/#/approvals');
    await tab.signIn(keys[caller] ?? '');
    return tab;
  }

  beforeAll(async () => {
    await ui.system.addWorker({ SKILLS_DIR });
    for (const caller of ['approver', 'stranger']) keys[caller] = await ui.system.client.createKey(caller);
  });

  it('lists an execution awaiting approval for its approver only, and approving it there runs it', async () => {
    const approve = await ui.system.client.invoke('transfer', { amount: 1500, to: 'max' });
    const reject = await ui.system.client.invoke('transfer', { amount: 2500, to: 'ned' });
    const [approveId, rejectId] = [String(approve.body.execution_id), String(reject.body.execution_id)];

    const stranger = await open('stranger');
    await stranger.page.getByText('No approvals wait for you.').waitFor();

    const tab = await open('approver');
    const { page } = tab;
    await page.getByRole('navigation').getByRole('link', { name: 'Approvals' }).waitFor();
    const row = page.locator(`tr[data-execution="${approveId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('"amount":1500');
    expect(await row.textContent()).toContain('amount > 1000');
    expect(await tab.accessibilityViolations()).toEqual([]);

    await row.getByRole('button', { name: 'Approve' }).click();
    await page
      .getByRole('status')
      .getByText(/approved: now (accepted|running|completed)/)
      .waitFor();
    expect((await ui.system.client.waitForEnd('transfer', approveId)).final).toMatchObject({
      status: 'completed',
      approval: { state: 'approved', decided_by: 'approver', via: 'api' },
    });

    await page.locator(`tr[data-execution="${rejectId}"]`).getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').getByText('rejected: now failed').waitFor();
    expect((await ui.system.client.status('transfer', rejectId)).error?.code).toBe('APPROVAL_REJECTED');
    await tab.screenshot('approvals');

    // The execution's page says who approved it, how and when.
    await page.goto(`${ui.origin}/console/#/executions/transfer/${approveId}`);
    await page.getByText(/approved by approver via api at .+ \(asked because amount > 1000\)/).waitFor();
  });
});
