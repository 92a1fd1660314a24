import { fileURLToPath } from 'node:url';
import type { SkillRollout } from '@skillrun/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser } from '../support/console-browser';
import { ADMIN_HEADERS, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const registrySkills = fileURLToPath(new URL('../fixtures/registry-skills', import.meta.url));

/** A skill's rollout on its console page, in Chromium, against a real gateway and worker. */
describe("the console's rollout of a skill, in a browser", () => {
  const ui = ConsoleBrowser.use(() => TestSystem.start());

  const rollout = async () =>
    (await ui.system.client.request<SkillRollout>('/skills/greet/rollout', { headers: ADMIN_HEADERS })).body;

  beforeAll(async () => {
    await ui.system.addWorker({ SKILLS_DIR: registrySkills, WORKER_SKILLS: 'greet@1.0.0,greet@1.1.0' });
  });

  it('shows an admin the split, and ramps, pins, unpins and rolls back from the skill page', async () => {
    const tab = await ui.open();
    await tab.signIn(TEST_ADMIN_KEY);
    const { page } = tab;
    await page.goto(`${ui.origin}/console/#/skills/greet`);
    const split = page.locator('.rollout-split');
    await expect
      .poll(() => split.textContent())
      .toContain('No ramp: unpinned callers run the latest version (1.1.0)');

    await page.getByLabel('Ramp version', { exact: true }).selectOption('1.1.0');
    await page.getByLabel('to share (%)', { exact: true }).fill('30');
    await page.getByRole('button', { name: 'Ramp' }).click();
    await expect.poll(() => split.textContent()).toContain('1.1.0: 30% of unpinned callers · 1.0.0: 70%');
    expect(
      await page
        .getByRole('progressbar', { name: 'Share of unpinned callers on 1.1.0' })
        .getAttribute('value'),
    ).toBe('30');
    expect((await rollout()).ramp).toMatchObject({ version: '1.1.0', percent: 30 });
    expect(await tab.accessibilityViolations()).toEqual([]);
    await tab.screenshot('skill-rollout');

    // The service's refusal shows, and nothing changes.
    await page.getByLabel('to share (%)', { exact: true }).fill('120');
    await page.getByRole('button', { name: 'Ramp' }).click();
    await page
      .locator('.rollout .action-result')
      .getByText(/INVALID_INPUT/)
      .waitFor();
    expect(await page.locator('.rollout .action-result').textContent()).toContain('/percent');
    expect((await rollout()).ramp?.percent).toBe(30);

    await page.getByLabel('Pin caller', { exact: true }).fill('console-caller');
    await page.getByLabel('to range', { exact: true }).fill('1.0.0');
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await page.getByRole('row', { name: /console-caller/ }).waitFor();
    expect((await rollout()).pins.map((pin) => pin.caller)).toEqual(['console-caller']);
    await page.getByRole('button', { name: 'Unpin console-caller' }).click();
    await page.getByText('No caller is pinned.').waitFor();

    await page.getByRole('button', { name: 'Roll back' }).click();
    await expect
      .poll(() => split.textContent())
      .toContain('1.1.0: 0% of unpinned callers · 1.0.0: 100% (rolled back)');
    expect((await rollout()).ramp?.percent).toBe(0);
  });

  it('shows no rollout to a caller who is not an admin', async () => {
    const key = await ui.system.client.createKey('console-viewer');
    const tab = await ui.open();
    await tab.signIn(key);
    const { page } = tab;
    await page.goto(`${ui.origin}/console/#/skills/greet`);
    await page.getByRole('button', { name: 'Invoke' }).waitFor();
    expect(await page.locator('.rollout').count()).toBe(0);
  });
});
