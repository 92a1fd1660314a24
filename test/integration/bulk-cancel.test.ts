import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BulkCancelResult } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_HEADERS, type ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Envelope {
  error: { code: string; message: string; details?: { path: string }[] };
}

describe('bulk cancel: POST /executions/cancel with the filter of GET /executions', () => {
  let system: TestSystem;
  let worker: ServiceProcess;
  const headers: Record<string, Record<string, string>> = {};
  const gate = join(tmpdir(), `skillrun-bulk-cancel-gate-${process.pid}`);
  const open = join(tmpdir(), `skillrun-bulk-cancel-open-${process.pid}`);
  /** Alice's execution that runs (started before the pause), then her five and Bob's two that wait. */
  let running: string;
  let alices: string[];
  let bobs: string[];

  beforeAll(async () => {
    system = await TestSystem.start();
    worker = await system.addWorker({ WORKER_SKILLS: 'gated,echo' });
    await writeFile(open, '');
    const { client } = system;
    for (const caller of ['alice', 'bob']) headers[caller] = { 'x-api-key': await client.createKey(caller) };
    headers.reader = { 'x-api-key': await client.createKey('reader', ['skill:read']) };
    const as = (caller: string) => client.invokeAs(caller, 'gated', { gate: open }, headers[caller] ?? {});
    running = await client.invokeAs('alice', 'gated', { gate }, headers.alice ?? {});
    while ((await client.status('gated', running, headers.alice)).status !== 'running') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Paused, the rest wait as accepted for the cancels to find them.
    const paused = await client.request('/skills/gated/pause', { method: 'POST', headers: ADMIN_HEADERS });
    if (paused.status !== 200) throw new Error(`pause answered ${paused.status}`);
    alices = [];
    for (let n = 0; n < 5; n++) alices.push(await as('alice'));
    bobs = [await as('bob'), await as('bob')];
  });
  afterAll(async () => {
    await Promise.all([rm(gate, { force: true }), rm(open, { force: true })]);
    await system?.stop();
  });

  const cancel = (filter: unknown, as: Record<string, string> | undefined) =>
    system.client.requestAvailable<BulkCancelResult & Envelope>('/executions/cancel', {
      json: filter,
      headers: as ?? {},
    });
  const statuses = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => (await system.client.status('gated', id, ADMIN_HEADERS)).status));

  it("cancels the caller's own that match, a page at a time, and nobody else's", async () => {
    const pages: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const answer = await cancel(
        { skill_id: 'gated', status: 'accepted', limit: 2, ...(cursor ? { cursor } : {}) },
        headers.alice,
      );
      expect(answer.status).toBe(200);
      pages.push(answer.body.canceled);
      if (answer.body.next_cursor === null) break;
      cursor = answer.body.next_cursor;
    }
    expect(pages).toEqual([2, 2, 1]);
    expect(await statuses(alices)).toEqual(Array(5).fill('canceled'));
    const first = await system.client.status('gated', alices[0] ?? '', headers.alice);
    expect(first.error).toMatchObject({ code: 'EXECUTION_CANCELED', message: 'Canceled by alice' });
    // Another status (running), another caller: untouched.
    expect(await statuses([running, ...bobs])).toEqual(['running', 'accepted', 'accepted']);
    // Nothing is left to cancel: the same filter again cancels none.
    expect((await cancel({ skill_id: 'gated', status: 'accepted' }, headers.alice)).body).toEqual({
      canceled: 0,
      next_cursor: null,
    });
  });

  it('aborts a running one the filter finds, as the single cancel does', async () => {
    const answer = await cancel({ status: 'running' }, headers.alice);
    expect(answer.body).toEqual({ canceled: 1, next_cursor: null });
    await worker.waitForLog(
      (line) => line.execution_id === running && line.msg === 'attempt stopped: the execution was canceled',
    );
    expect(await statuses([running])).toEqual(['canceled']);
  });

  it("lets an admin cancel anyone's, or one caller's with caller_id", async () => {
    const other = await system.client.invokeAs('alice', 'gated', { gate: open }, headers.alice ?? {});
    const answer = await cancel({ caller_id: 'bob', skill_id: 'gated' }, ADMIN_HEADERS);
    expect(answer.body).toEqual({ canceled: 2, next_cursor: null });
    expect(await statuses([...bobs, other])).toEqual(['canceled', 'canceled', 'accepted']);
    expect((await cancel({}, ADMIN_HEADERS)).body).toEqual({ canceled: 1, next_cursor: null });
    expect(await statuses([other])).toEqual(['canceled']);
  });

  it('takes the schedule and batch filters, which find nothing here', async () => {
    for (const filter of [{ schedule_id: 'sch_1' }, { batch_id: 'bat_1' }]) {
      expect((await cancel(filter, headers.alice)).body).toEqual({ canceled: 0, next_cursor: null });
    }
  });

  it('refuses bad filters, other callers and missing credentials with the error envelope', async () => {
    const outcomes = async (attempts: Promise<{ status: number; body: Envelope }>[]) =>
      (await Promise.all(attempts)).map(({ status, body }) => [status, body.error?.code ?? null]);
    expect(
      await outcomes([
        cancel({ status: 'stuck' }, headers.alice),
        cancel({ limit: 0 }, headers.alice),
        cancel({ limit: 1001 }, headers.alice),
        cancel({ since: 'yesterday' }, headers.alice),
        cancel({ since: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' }, headers.alice),
        cancel({ version: 'not a range' }, headers.alice),
        cancel({ cursor: 'garbage' }, headers.alice),
        cancel({ skill: 'gated' }, headers.alice),
        cancel([], headers.alice),
        cancel({ caller_id: 'bob' }, headers.alice),
        cancel({}, headers.reader),
        cancel({}, undefined),
      ]),
    ).toEqual([
      ...Array(9).fill([400, 'INVALID_INPUT']),
      [403, 'ACCESS_DENIED'],
      [403, 'ACCESS_DENIED'],
      [401, 'AUTH_REQUIRED'],
    ]);
    const text = await system.client.request<Envelope>('/executions/cancel', {
      method: 'POST',
      body: 'skill_id=gated',
      headers: { 'content-type': 'text/plain', ...headers.alice },
    });
    expect([text.status, text.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});
