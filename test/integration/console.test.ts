import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { ConsoleBrowser, type ConsoleTab } from '../support/console-browser';
import { ADMIN_HEADERS, repoRoot, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = `${repoRoot}test/fixtures/console-skills`;

/**
 * The operations console at /console, driven in Chromium (Debian's, through playwright-core)
 * against a real gateway and worker: what an operator does there, as they would do it.
 */
describe('the console, in a browser', () => {
  const ui = ConsoleBrowser.use(() => TestSystem.start({ SKILLS_DIR }));
  let client: Client;
  const keys: Record<string, string> = {};
  const headers = (caller: string) => ({ 'x-api-key': keys[caller] ?? '' });

  async function open(caller: string): Promise<ConsoleTab> {
    const tab = await ui.open();
    await tab.signIn(caller === 'admin' ? TEST_ADMIN_KEY : (keys[caller] ?? ''));
    return tab;
  }

  beforeAll(async () => {
    await ui.system.addWorker({ SKILLS_DIR });
    client = ui.system.client;
    for (const caller of ['alice', 'bob']) keys[caller] = await client.createKey(caller);
  });

  it('is served under /console with a CSP of its own that works over plain HTTP', async () => {
    const answer = await fetch(`${ui.system.gateway.url}/console/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(answer.headers.get('strict-transport-security')).toBeNull();
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await answer.text();
    expect(html).not.toMatch(/<script>|https?:\/\//);
    // Its API docs, opened the same way, are not blank either: the same CSP rule.
    const docs = await fetch(`${ui.system.gateway.url}/docs/`);
    expect(docs.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    // Without an authorization server, signing in takes a pasted key or token only.
    expect((await client.request('/console/sign-in')).body).toEqual({});
    const exchange = await client.request('/console/sign-in/token', {
      json: { code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: `${ui.origin}/console/` },
    });
    expect([exchange.status, exchange.body.error]).toEqual([
      501,
      expect.objectContaining({ code: 'NOT_CONFIGURED' }),
    ]);
  });

  it('shows the API docs at a host name over plain HTTP, without a validator badge or any other host', async () => {
    const tab = await ui.open('/docs/');
    const { page } = tab;
    await page.locator('.swagger-ui .info .title').getByText('skillrun').waitFor();
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    expect(await page.locator('img[src*="validator"], .validator-badge').count()).toBe(0);
    await tab.screenshot('api-docs');
  });

  it('asks for a key, refuses a wrong one, and says who a right one is', async () => {
    const tab = await ui.open();
    const { page } = tab;
    await page.getByLabel('API key or access token').fill('srk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The service does not know this key or token.').waitFor();
    await tab.signIn(keys.alice ?? '');
    expect(await page.locator('#who').textContent()).toBe('alice');
    // The key stays out of the address.
    expect(page.url()).not.toContain(keys.alice);
  });

  it("lists the caller's executions with their durations, filters them, and opens one", async () => {
    const greeted = await client.invokeAs('alice', 'greet', { name: 'Ada' }, headers('alice'));
    await client.waitForEnd('greet', greeted, 20_000, headers('alice'));
    const slept = await client.invokeAs('alice', 'slow', { ms: 0 }, headers('alice'));
    await client.waitForEnd('slow', slept, 20_000, headers('alice'));
    const others = await client.invokeAs('bob', 'greet', { name: 'Bob' }, headers('bob'));

    const tab = await open('alice');
    const { page } = tab;
    const row = (id: string) => page.locator(`tr[data-execution-id="${id}"]`);
    await row(greeted).waitFor();
    await row(slept).waitFor();
    expect(await row(greeted).locator('td').allTextContents()).toEqual([
      `${greeted.slice(0, 8)}…`,
      'greet',
      '1.0.0',
      'completed',
      expect.any(String),
      expect.stringMatching(/ms|s$/),
      expect.stringMatching(/ms|s$/),
      '–',
      '1/1',
      expect.stringMatching(/./),
      '–',
      'alice',
    ]);
    expect(await row(others).count()).toBe(0);
    await tab.screenshot('executions');

    await page.getByLabel('Skill', { exact: true }).fill('slow');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/skill_id=slow/);
    await row(greeted).waitFor({ state: 'detached' });
    await row(slept).waitFor();

    // A version range the executions are not in, then one they are.
    await page.getByLabel('Version').fill('^2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No executions match.').waitFor();
    await page.getByLabel('Version').fill('1.0.0');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await row(slept).waitFor();
    expect(
      (await client.request('/executions?version=not-a-range', { headers: headers('alice') })).status,
    ).toBe(400);

    await page.getByLabel('Skill', { exact: true }).fill('');
    await page.getByLabel('Version').fill('');
    await page.getByLabel('failed').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No executions match.').waitFor();

    await page.getByRole('link', { name: 'Clear' }).click();
    await row(greeted).getByRole('link').click();
    await page.getByRole('heading', { name: `Execution ${greeted}` }).waitFor();
    await page.getByText('Hello, Ada!').waitFor();
    // Its inputs as recorded, the default applied.
    expect(JSON.parse((await page.getByLabel('Inputs', { exact: true }).textContent()) ?? '')).toEqual({
      name: 'Ada',
      times: 1,
    });
    // As its status, another caller's execution's inputs are not found.
    expect(
      (await client.request(`/skills/greet/inputs/${greeted}`, { headers: headers('bob') })).status,
    ).toBe(404);
    expect((await client.request(`/skills/greet/inputs/${greeted}`, { headers: ADMIN_HEADERS })).status).toBe(
      200,
    );
    const facts = page.locator('dl.facts');
    expect(await facts.textContent()).toContain('Trace id');
    expect(await page.locator('ol.timeline').textContent()).toMatch(/Accepted.*Started.*Completed/s);
  });

  it('shows a new execution in the list as it starts, and follows one live to its end', async () => {
    const tab = await open('alice');
    const { page } = tab;
    await page.locator('p.live').getByText('Live').waitFor();
    // Started elsewhere (here, over HTTP) while the list is open: it appears without a reload.
    const id = await client.invokeAs('alice', 'slow', { ms: 3000 }, headers('alice'));
    await page.locator(`tr[data-execution-id="${id}"]`).waitFor();
    await page.locator(`tr[data-execution-id="${id}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: `Execution ${id}` }).waitFor();
    await page.locator('.headline .status-running').waitFor();
    await page.locator('progress').waitFor();
    await tab.screenshot('execution-running');
    await page.locator('.headline .status-completed').waitFor({ timeout: 20_000 });
    await page.getByText('"slept_ms"').waitFor();
    await page.getByText('Ended: completed.').waitFor();
  });

  it("shows a composite's steps as a tree, each step linking to its own page", async () => {
    const id = await client.invokeAs(
      'alice',
      'greet_pair',
      { first: 'Ann', second: 'Ben' },
      headers('alice'),
    );
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/greet_pair/${id}`);
    await page.locator('.headline .status-completed').waitFor({ timeout: 20_000 });
    const steps = page.locator('ul.steps > li');
    await steps.nth(1).waitFor();
    expect(await steps.locator('.step-name').allTextContents()).toEqual(['one', 'two']);
    await steps.nth(1).getByRole('link').click();
    await page.getByText('Hello, Ben!').waitFor();
    await page.getByText('Step of').waitFor();
  });

  it("shows the errors of the attempts that were retried in an execution's timeline", async () => {
    const id = await client.invokeAs('alice', 'flaky', {}, headers('alice'));
    const { final } = await client.waitForEnd('flaky', id, 20_000, headers('alice'));
    expect(final.status).toBe('completed');
    expect(final.attempt_errors?.map((each) => [each.attempt, each.error.code, each.error.message])).toEqual([
      [1, 'TOOL_EXECUTION_FAILED', 'the upstream was busy (attempt 1)'],
      [2, 'TOOL_EXECUTION_FAILED', 'the upstream was busy (attempt 2)'],
    ]);
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/flaky/${id}`);
    await page.locator('.headline .status-completed').waitFor();
    const failures = page.locator('ol.timeline li.attempt-failed');
    expect(await failures.allTextContents()).toEqual([
      expect.stringMatching(
        /^Attempt 1 failed .+ on \S+ with TOOL_EXECUTION_FAILED: the upstream was busy \(attempt 1\)$/,
      ),
      expect.stringMatching(
        /^Attempt 2 failed .+ on \S+ with TOOL_EXECUTION_FAILED: the upstream was busy \(attempt 2\)$/,
      ),
    ]);
    expect(await page.locator('ol.timeline').textContent()).toMatch(
      /Started.*Attempt 1 failed.*Attempt 2 failed.*2 retries.*Completed/s,
    );
  });

  it('shows when a delayed execution is due in its timeline, and that it waits for that, not in the queue', async () => {
    const delayed = await client.invoke(
      'greet',
      { name: 'Later' },
      { caller: { id: 'alice', type: 'user' }, context: { delay_ms: 600_000 } },
      headers('alice'),
    );
    expect(delayed.status).toBe(202);
    const id = String(delayed.body.execution_id);
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/greet/${id}`);
    await page.locator('.headline .status-accepted').waitFor();
    expect(await page.locator('ol.timeline').textContent()).toMatch(
      /Accepted.*Due .+Delayed: starts in \d+ min/s,
    );
    expect(await page.locator('ol.timeline').textContent()).not.toContain('Waiting in the queue');
    expect((await client.cancel('greet', id, headers('alice'))).status).toBe(200);
    await page.locator('.headline .status-canceled').waitFor();
  });

  it('holds a large output back behind "Show all", and keeps it whole', async () => {
    const id = await client.invokeAs('alice', 'big', { lines: 2000 }, headers('alice'));
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/big/${id}`);
    await page.getByText(/^Showing 20,000 of [\d,]+ characters/).waitFor();
    const output = page
      .getByRole('region', { name: 'Output' })
      .or(page.getByLabel('Output', { exact: true }));
    expect(await output.textContent()).not.toContain('line 2000 of the big output');
    expect(await page.getByRole('link', { name: 'Download JSON' }).getAttribute('href')).toMatch(/^blob:/);
    await page.getByRole('button', { name: 'Show all' }).click();
    expect(await output.textContent()).toContain('"last": "line 2000 of the big output"');
  });

  it('is used from the keyboard: a skip link, and the focus on each page heading', async () => {
    const { page } = await open('alice');
    const focused = (property: string) => page.evaluate(`document.activeElement?.${property}`);
    // Opened, the first Tab reaches the skip link, which moves the focus to the content.
    await page.reload();
    await page.locator('#who').waitFor();
    await page.keyboard.press('Tab');
    expect(await focused('textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await focused('id')).toBe('main');
    await page.getByRole('link', { name: 'Skills' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Skills' }).waitFor();
    expect(await focused('tagName')).toBe('H1');
  });

  it('says on its sign-in page where a first key comes from', async () => {
    const tab = await ui.open();
    const help = tab.page.getByRole('region', { name: 'No key yet?' });
    await help.waitFor();
    const text = (await help.textContent()) ?? '';
    expect(text).toContain('npm start');
    expect(text).toContain('cat .data/admin-key');
    expect(text).toContain('npx skillrun keys create --caller you --scopes skill:invoke,skill:read');
  });

  it('meets WCAG 2 AA on its main pages, as axe-core measures them in the browser', async () => {
    const executionId = await client.invokeAs('alice', 'greet', { name: 'Axe' }, headers('alice'));
    // Yearly: listed, never run here.
    const scheduled = await client.request<{ schedule_id: string }>('/schedules', {
      json: { skill_id: 'greet', cron: '0 0 1 1 *', inputs: { name: 'Axe' } },
      headers: headers('alice'),
    });
    const batch = await client.request<{ batch_id: string }>('/batches', {
      json: {
        caller: { id: 'alice', type: 'user' },
        items: [{ skill_id: 'greet', inputs: { name: 'Axe' } }],
      },
      headers: headers('alice'),
    });
    const taskId = await client.invokeAs('alice', 'approve', { text: 'Measured?' }, headers('alice'));
    const canceledId = await client.invokeAs('alice', 'slow', { ms: 60000 }, headers('alice'));
    await client.cancel('slow', canceledId, headers('alice'));
    await client.waitForEnd('greet', executionId, 20_000, headers('alice'));
    const found: Record<string, string[]> = {};
    // Signing in, with the message for a key the service does not know.
    const opened = await ui.open();
    const { page } = opened;
    await page.getByLabel('API key or access token').fill('srk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The service does not know this key or token.').waitFor();
    found['sign-in'] = await opened.accessibilityViolations();
    await opened.signIn(TEST_ADMIN_KEY);
    const pages: [string, () => Promise<unknown>][] = [
      [
        '#/executions',
        () => page.locator(`tr[data-execution-id="${canceledId}"] .status-canceled`).waitFor(),
      ],
      [`#/executions/greet/${executionId}`, () => page.getByText('Hello, Axe!').waitFor()],
      ['#/skills', () => page.getByRole('link', { name: 'greet', exact: true }).waitFor()],
      ['#/skills/greet', () => page.getByRole('button', { name: 'Invoke' }).waitFor()],
      ['#/tasks', () => page.getByRole('link', { name: `${taskId.slice(0, 8)}…` }).waitFor()],
      [`#/tasks/${taskId}`, () => page.getByRole('button', { name: 'Claim' }).waitFor()],
      ['#/workers', () => page.locator('tr[data-worker-id]').first().waitFor()],
      ['#/schedules', () => page.locator(`tr[data-schedule-id="${scheduled.body.schedule_id}"]`).waitFor()],
      [
        `#/schedules/${scheduled.body.schedule_id}`,
        () => page.getByRole('button', { name: 'Pause' }).waitFor(),
      ],
      ['#/batches', () => page.getByRole('button', { name: 'Open batch' }).waitFor()],
      [
        `#/batches/${batch.body.batch_id}`,
        () => page.getByText('Ended: every execution of the batch has ended.').waitFor(),
      ],
    ];
    for (const [address, shown] of pages) {
      await page.goto(`${ui.origin}/console/${address}`);
      await shown();
      found[address] = await opened.accessibilityViolations();
    }
    // The try-it form with the service's messages beside its fields.
    await page.goto(`${ui.origin}/console/#/skills/greet`);
    await page.getByLabel('times').fill('9');
    await page.getByRole('button', { name: 'Invoke' }).click();
    await page.locator('.field-error:not([hidden])').first().waitFor();
    found['#/skills/greet (refused)'] = await opened.accessibilityViolations();
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((address) => [address, []])));
  });

  it('tries a skill from a form generated from its inputs: the service says what is wrong, then it runs', async () => {
    const tab = await open('alice');
    const { page } = tab;
    await page.getByRole('link', { name: 'Skills' }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill('greets');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'greet', exact: true }).click();
    await page.getByRole('heading', { name: 'greet 1.0.0' }).waitFor();
    // The inputs, readably.
    const inputs = page.getByRole('table', { name: 'Inputs' });
    expect(await inputs.locator('tbody tr').first().locator('th, td').allTextContents()).toEqual([
      'name',
      'string',
      'yes',
      '',
      '1–40 chars',
      'Who to greet.',
    ]);
    await tab.screenshot('skill');

    await page.getByLabel('times').fill('9');
    await page.getByRole('button', { name: 'Invoke' }).click();
    // Both messages come from the service, each beside its field: name is missing, times too high.
    const errorOf = async (label: string) => {
      const id = await page.getByLabel(label).getAttribute('id');
      return page.locator(`[id="${id}-error"]`);
    };
    await (await errorOf('name')).waitFor();
    expect(await (await errorOf('name')).textContent()).toMatch(/required/);
    expect(await (await errorOf('times')).textContent()).toMatch(/5/);
    expect(await page.locator('.field-error:not([hidden])').count()).toBe(2);
    await tab.screenshot('skill-refused');

    await page.getByLabel('name').fill('Grace');
    await page.getByLabel('times').fill('2');
    await page.getByLabel('tone').selectOption({ label: '"formal"' });
    await page.getByRole('button', { name: 'Invoke' }).click();
    await page.getByRole('heading', { name: /^Execution / }).waitFor();
    await page.getByText('Good day, Grace! Good day, Grace!').waitFor();
  });

  it('completes a task from its inbox with a form generated from the output schema', async () => {
    const id = await client.invokeAs('alice', 'approve', { text: 'Ship it?' }, headers('alice'));
    await expect
      .poll(async () => (await client.status('approve', id, headers('alice'))).task?.state)
      .toBe('open');

    const tab = await open('bob');
    const { page } = tab;
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('link', { name: `${id.slice(0, 8)}…` }).click();
    await page.getByText('Read the text, then approve it or not.').waitFor();
    await page.getByText('"Ship it?"').waitFor();
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText('Claimed by bob').waitFor();
    await tab.screenshot('task');

    await page.getByLabel('approved').check();
    await page.getByLabel('note').fill('far too long a note for this field');
    await page.getByRole('button', { name: 'Complete task' }).click();
    await page.locator('.field-error:not([hidden])').getByText(/20/).waitFor();

    await page.getByLabel('note').fill('fine');
    await page.getByRole('button', { name: 'Complete task' }).click();
    await page.getByText('Task completed: the execution is completed.').waitFor();
    const final = await client.status('approve', id, headers('alice'));
    expect(final.output).toEqual({ approved: true, note: 'fine' });
  });

  it('cancels an execution that runs, and replays one that ended', async () => {
    const id = await client.invokeAs('alice', 'slow', { ms: 60000 }, headers('alice'));
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/slow/${id}`);
    await page.locator('.headline .status-running').waitFor();
    await page.getByRole('button', { name: 'Cancel execution' }).click();
    await page.locator('.headline .status-canceled').waitFor();
    await page.getByText('EXECUTION_CANCELED').first().waitFor();
    expect((await client.status('slow', id, headers('alice'))).status).toBe('canceled');

    await page.getByRole('button', { name: 'Replay' }).click();
    await page.waitForURL((url) => !url.hash.endsWith(id));
    await page.getByText('Replay of').waitFor();
    const replayId = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1) ?? '');
    expect((await client.status('slow', replayId, headers('alice'))).replay_of).toBe(id);
    await client.cancel('slow', replayId, headers('alice'));
  });

  it('shows an admin the workers alive, what they host, their queues and the last hour in lines', async () => {
    const id = await client.invokeAs('alice', 'greet', { name: 'Lin' }, headers('alice'));
    await client.waitForEnd('greet', id, 20_000, headers('alice'));
    const tab = await open('admin');
    const { page } = tab;
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByRole('heading', { name: 'Workers and queues' }).waitFor();
    const worker = page.locator('tr[data-worker-id]');
    await worker.first().waitFor();
    expect(await worker.count()).toBe(1);
    const hosts = await worker.locator('td').first().textContent();
    expect(hosts).toContain('greet@1.0.0');
    expect(hosts).toContain('approve@1.0.0');
    const greet = page.locator('tr[data-queue="greet@1.0.0"]');
    expect(await greet.locator('td').first().textContent()).toBe('1');
    // The completed line counts this hour's greetings (at least the one above).
    await expect
      .poll(async () => (await greet.locator('svg.sparkline-ok').getAttribute('aria-label')) ?? '')
      .toMatch(/[1-9]\d*$/);
    await tab.screenshot('workers');
    // Not for callers: the fleet is the admin's.
    expect((await client.request('/admin/fleet', { headers: headers('alice') })).status).toBe(403);
  });

  it('lets an admin pause a skill and resume it, from its page and from the workers page', async () => {
    const { page } = await open('admin');
    await page.goto(`${ui.origin}/console/#/skills/greet`);
    await page.getByRole('button', { name: 'Pause skill greet' }).click();
    await page
      .getByText(/^Paused since .* by admin: its executions are accepted and wait; none starts\.$/)
      .waitFor();
    expect(
      (await client.request('/skills/greet', { headers: ADMIN_HEADERS })).body['x-paused'],
    ).toMatchObject({
      paused_by: 'admin',
    });
    const held = await client.invokeAs('alice', 'greet', { name: 'Held' }, headers('alice'));

    await page.getByRole('link', { name: 'Workers' }).click();
    const greet = page.locator('tr[data-queue="greet@1.0.0"]');
    await greet.locator('.status-paused').waitFor();
    await greet.getByRole('button', { name: 'Resume skill greet' }).click();
    await greet.locator('.status-paused').waitFor({ state: 'detached' });
    expect((await client.waitForEnd('greet', held, 20_000, headers('alice'))).final.status).toBe('completed');
    // Not for callers: they see no pause and have no button.
    expect(
      (await client.request('/skills/greet/pause', { method: 'POST', headers: headers('alice') })).status,
    ).toBe(403);
  });

  it('cancels every execution the filters find, once asked to confirm', async () => {
    const ids = [
      await client.invokeAs('alice', 'slow', { ms: 60000 }, headers('alice')),
      await client.invokeAs('alice', 'slow', { ms: 60000 }, headers('alice')),
    ];
    const bobs = await client.invokeAs('bob', 'slow', { ms: 60000 }, headers('bob'));
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions?skill_id=slow&status=accepted,running`);
    await page.locator(`tr[data-execution-id="${ids[0]}"]`).waitFor();
    await page.getByRole('button', { name: 'Cancel matching executions…' }).click();
    await page.getByText('Cancel every execution these filters find that has not ended (yours)?').waitFor();
    await page.getByRole('button', { name: 'Cancel them' }).click();
    await page.getByText(/^Canceled \d+ executions?\.$/).waitFor();
    for (const id of ids) expect((await client.status('slow', id, headers('alice'))).status).toBe('canceled');
    expect((await client.status('slow', bobs, headers('bob'))).status).not.toBe('canceled');
    await client.cancel('slow', bobs, headers('bob'));
  });

  it("shows an admin everyone's executions, and one caller's when asked", async () => {
    const id = await client.invokeAs('bob', 'greet', { name: 'Bo' }, headers('bob'));
    const alices = await client.invokeAs('alice', 'greet', { name: 'Al' }, headers('alice'));
    const { page } = await open('admin');
    expect(await page.locator('#who').textContent()).toBe('admin (admin)');
    await page.locator(`tr[data-execution-id="${id}"]`).waitFor();
    await page.getByLabel('Caller').fill('alice');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/caller_id=alice/);
    await page.locator(`tr[data-execution-id="${alices}"]`).waitFor();
    await page.locator(`tr[data-execution-id="${id}"]`).waitFor({ state: 'detached' });
    await expect
      .poll(async () => new Set(await page.locator('tbody tr td:last-child').allTextContents()))
      .toEqual(new Set(['alice']));
    expect((await client.request('/executions', { headers: ADMIN_HEADERS })).status).toBe(200);
  });

  it('filters executions by tags (all or any) and by a metadata value, and shows their tags', async () => {
    const invoke = async (context: Record<string, unknown>) => {
      const answer = await client.invoke(
        'greet',
        { name: 'Tagged' },
        { caller: { id: 'alice', type: 'user' }, context },
        headers('alice'),
      );
      expect(answer.status).toBe(202);
      return String(answer.body.execution_id);
    };
    const both = await invoke({ tags: ['team:red', 'env/prod'], metadata: { order: 'A-7' } });
    const red = await invoke({ tags: ['team:red'], metadata: { order: 'B-1' } });
    const blue = await invoke({ tags: ['team:blue'] });
    const { page } = await open('alice');
    const rows = () =>
      page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-execution-id')));
    await page.getByLabel('Tags (comma-separated)').fill('team:red, env/prod');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/tag=team%3Ared%2Cenv%2Fprod/);
    await expect.poll(rows).toEqual([both]);
    expect(await page.locator(`tr[data-execution-id="${both}"] td.tags`).textContent()).toBe(
      'team:red, env/prod',
    );
    await page.getByLabel('Tags (comma-separated)').fill('team:red, team:blue');
    await page.getByLabel('any of the tags (not all)').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/tag_match=any/);
    await expect.poll(async () => new Set(await rows())).toEqual(new Set([both, red, blue]));
    await page.getByLabel('Tags (comma-separated)').fill('');
    await page.getByLabel('Metadata (key=value)').fill('order=B-1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/metadata\.order=B-1/);
    await expect.poll(rows).toEqual([red]);
    expect(await page.getByLabel('Metadata (key=value)').inputValue()).toBe('order=B-1');
  });

  it('finds a batch from the list and its executions, shows its counts live, and cancels what has not ended', async () => {
    const batch = await client.request<{ batch_id: string; executions: Record<string, unknown>[] }>(
      '/batches',
      {
        json: {
          caller: { id: 'alice', type: 'user' },
          items: [
            { skill_id: 'greet', inputs: { name: 'Batch' } },
            { skill_id: 'slow', inputs: { ms: 60000 } },
            { skill_id: 'greet', inputs: { name: 'Batch', times: 9 } },
            { skill_id: 'slow', inputs: { ms: 60000 } },
          ],
        },
        headers: headers('alice'),
      },
    );
    expect(batch.status).toBe(202);
    const batchId = batch.body.batch_id;
    const [greeted, slowOne, refused, slowTwo] = batch.body.executions.map((slot) => slot.execution_id);
    expect(refused).toBeUndefined();
    const outside = await client.invokeAs('alice', 'greet', { name: 'Alone' }, headers('alice'));
    const tab = await open('alice');
    const { page } = tab;
    const row = (id: unknown) => page.locator(`tr[data-execution-id="${id}"]`);

    // The list, filtered by the batch: its three executions, nothing else.
    await row(outside).waitFor();
    await page.getByLabel('Batch id').fill(batchId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`batch_id=${batchId}`));
    await row(outside).waitFor({ state: 'detached' });
    for (const id of [greeted, slowOne, slowTwo]) await row(id).waitFor();

    // An execution of the batch links to it.
    await row(greeted).getByRole('link').click();
    await page.getByText('Hello, Batch!').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('Item of batch');
    await page.getByRole('link', { name: batchId }).click();

    // The batch, in the items' order (the refused item started none), its counts kept current.
    await page.getByRole('heading', { name: `Batch ${batchId}` }).waitFor();
    await row(greeted).locator('.status-completed').waitFor({ timeout: 20_000 });
    expect(
      await page
        .locator('table.batch-executions tbody tr')
        .evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-execution-id'))),
    ).toEqual([greeted, slowOne, slowTwo]);
    const count = (status: string) => page.locator(`ul.batch-counts li[data-status="${status}"]`);
    await expect.poll(async () => count('completed').textContent()).toBe('completed 1');
    expect(await page.locator('dl.facts').textContent()).toMatch(/Items4Executions3/);
    await page.getByText('1 of 3 ended').waitFor();
    await tab.screenshot('batch');
    // One canceled elsewhere (over HTTP) while the page is open: it shows without a reload.
    expect((await client.cancel('slow', String(slowOne), headers('alice'))).status).toBe(200);
    await row(slowOne).locator('.status-canceled').waitFor();
    await page.getByText('2 of 3 ended').waitFor();
    expect(await count('canceled').textContent()).toBe('canceled 1');

    // Changed its mind once, then cancels what has not ended.
    await page.getByRole('button', { name: 'Cancel batch…' }).click();
    await page.getByRole('button', { name: 'Keep them' }).click();
    await page.getByRole('button', { name: 'Cancel batch…' }).click();
    await page.getByText('Cancel every execution of this batch that has not ended?').waitFor();
    await page.getByRole('button', { name: 'Cancel them' }).click();
    await page.getByText('Ended: every execution of the batch has ended.').waitFor();
    expect(await count('canceled').textContent()).toBe('canceled 2');
    expect(await page.getByRole('button', { name: 'Cancel batch…' }).isHidden()).toBe(true);
    for (const id of [slowOne, slowTwo])
      expect((await client.status('slow', String(id), headers('alice'))).status).toBe('canceled');

    // Its executions in the list, by the link the batch gives; a batch opened by its id.
    await page.getByRole('link', { name: 'Its executions, with their durations and filters' }).click();
    await row(slowOne).locator('.status-canceled').waitFor();
    expect(await page.getByLabel('Batch id').inputValue()).toBe(batchId);
    await page.getByRole('link', { name: 'Batches' }).click();
    // The list's own "Batch id" filter is there until the batches page replaces it.
    await page.getByRole('heading', { name: 'Batches', exact: true }).waitFor();
    await page.getByLabel('Batch id').fill(batchId);
    await page.getByRole('button', { name: 'Open batch' }).click();
    await page.getByText('Ended: every execution of the batch has ended.').waitFor();

    // Another caller's batch is not found, as an unknown one.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await tab.signIn(keys.bob ?? '');
    await page.goto(`${ui.origin}/console/#/batches/${batchId}`);
    await page.getByText('BATCH_NOT_FOUND').waitFor();
  });

  it('shows a schedule with its next and latest runs, each linking to its execution (which links back), and pauses, resumes and deletes it', async () => {
    keys.carol = await client.createKey('carol');
    const made = await client.request<{ schedule_id: string }>('/schedules', {
      json: { skill_id: 'greet', every_ms: 1000, inputs: { name: 'Cron' } },
      headers: headers('carol'),
    });
    expect(made.status).toBe(201);
    const id = made.body.schedule_id;
    const { page } = await open('carol');
    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.locator(`tr[data-schedule-id="${id}"]`).getByText('every 1 s').waitFor();
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Schedule ${id}` }).waitFor();
    await page.locator('ol.next-runs li').first().waitFor();
    await page.locator('tr[data-outcome="launched"] .status-completed').first().waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('None while paused.').waitFor();
    expect(
      (await client.request<{ paused: boolean }>(`/schedules/${id}`, { headers: headers('carol') })).body
        .paused,
    ).toBe(true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();

    await page.locator('tr[data-outcome="launched"] a').first().click();
    await page.getByText('Hello, Cron!').waitFor();
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('button', { name: 'Delete schedule' }).click();
    await page.waitForURL((url) => url.hash === '#/schedules');
    await page.getByText('No schedules.').waitFor();
    expect((await client.request(`/schedules/${id}`, { headers: headers('carol') })).status).toBe(404);
  });

  it("shows what an execution's skill streams on its page as it comes, then its output", async () => {
    // Its own worker, last: the skills the other tests list stay as they were.
    await ui.system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/emit-skills` });
    const id = await client.invokeAs(
      'alice',
      'emitter',
      { count: 12, pause_ms: 150, kind: 'text' },
      headers('alice'),
    );
    const { page } = await open('alice');
    await page.goto(`${ui.origin}/console/#/executions/emitter/${id}`);
    const streamed = page.getByLabel('Streamed output');
    await streamed.getByText('line 2').waitFor();
    // Live: more arrives while it runs, in order, each line once.
    await page.locator('.headline .status-completed').waitFor({ timeout: 20_000 });
    expect(await streamed.textContent()).toBe(
      Array.from({ length: 12 }, (_, index) => `line ${index + 1}\n`).join(''),
    );
    await page.getByText('"emitted"').waitFor();
  });
});
