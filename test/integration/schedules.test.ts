import type { Execution, Schedule, ScheduleListPage } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Client } from '../support/client';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

type Envelope = { error: { code: string; details?: Array<{ path: string }> } };

const MAX_SCHEDULES = 3;

describe('schedules', () => {
  let system: TestSystem;
  let client: Client;
  let replica: Client;
  let n = 0;

  beforeAll(async () => {
    system = await TestSystem.start({ MAX_SCHEDULES_PER_CALLER: String(MAX_SCHEDULES) });
    const [gateway] = await Promise.all([
      system.addGateway(),
      system.addWorker({ WORKER_SKILLS: 'echo,sleepy' }),
    ]);
    client = system.client;
    replica = new Client(gateway.url);
  });
  afterAll(async () => {
    await system?.stop();
  });

  /** A caller of its own (each test stays under MAX_SCHEDULES) and its headers. */
  async function newCaller(): Promise<{ id: string; key: string; headers: Record<string, string> }> {
    const id = `scheduler-${n++}`;
    const key = await client.createKey(id);
    return { id, key, headers: { 'x-api-key': key } };
  }

  function create(headers: Record<string, string>, body: Record<string, unknown>, via = client) {
    return via.requestAvailable<Schedule>('/schedules', { json: body, headers });
  }

  async function created(headers: Record<string, string>, body: Record<string, unknown>, via = client) {
    const answer = await create(headers, body, via);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body;
  }

  async function read(id: string, headers: Record<string, string>): Promise<Schedule> {
    const answer = await client.requestAvailable<Schedule>(`/schedules/${id}`, { headers });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  }

  function patch(id: string, headers: Record<string, string>, change: Record<string, unknown>) {
    return client.requestAvailable<Schedule>(`/schedules/${id}`, { method: 'PATCH', json: change, headers });
  }

  /** The schedule once `enough` holds of its latest runs (polled). */
  async function runsUntil(
    id: string,
    headers: Record<string, string>,
    enough: (runs: NonNullable<Schedule['last_runs']>) => boolean,
  ): Promise<NonNullable<Schedule['last_runs']>> {
    let runs: NonNullable<Schedule['last_runs']> = [];
    await expect
      .poll(
        async () => {
          runs = (await read(id, headers)).last_runs ?? [];
          return enough(runs);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    return runs;
  }

  const launched = (runs: NonNullable<Schedule['last_runs']>) =>
    runs.filter((run) => run.outcome === 'launched');

  async function executionsOf(scheduleId: string, headers: Record<string, string>): Promise<Execution[]> {
    const answer = await client.requestAvailable<{ executions: Execution[] }>(
      `/executions?schedule_id=${scheduleId}&limit=100`,
      { headers },
    );
    expect(answer.status).toBe(200);
    return answer.body.executions;
  }

  it('runs every second as ordinary executions naming the schedule, listed by GET /executions?schedule_id=', async () => {
    const me = await newCaller();
    const context = {
      trace_id: 'schedule-trace',
      priority: 'high',
      timeout_ms: 20_000,
      queue_timeout_ms: 60_000,
    };
    const answer = await create(me.headers, {
      skill_id: 'echo',
      every_ms: 1000,
      inputs: { text: 'tick' },
      context,
    });
    expect(answer.status).toBe(201);
    const schedule = answer.body;
    expect(answer.headers.get('location')).toBe(`/schedules/${schedule.schedule_id}`);
    expect(schedule).toMatchObject({
      schedule_id: expect.stringMatching(/^sch_/),
      skill_id: 'echo',
      every_ms: 1000,
      inputs: { text: 'tick' },
      context,
      caller: { id: me.id, type: 'service' },
      overlap: 'allow',
      paused: false,
    });
    expect(schedule.next_runs).toHaveLength(5);
    const times = schedule.next_runs.map((at) => Date.parse(at));
    expect(times.slice(1).map((at, i) => at - (times[i] as number))).toEqual([1000, 1000, 1000, 1000]);

    const runs = await runsUntil(schedule.schedule_id, me.headers, (found) => launched(found).length >= 3);
    const dues = runs.map((run) => Date.parse(run.due_at));
    expect(dues).toEqual([...dues].sort((a, b) => b - a));
    expect(new Set(dues).size).toBe(dues.length);

    const ids = launched(runs).map((run) => run.execution_id);
    const listed = await executionsOf(schedule.schedule_id, me.headers);
    expect(listed.map((execution) => execution.execution_id)).toEqual(expect.arrayContaining(ids));
    for (const execution of listed) {
      expect(execution).toMatchObject({
        schedule_id: schedule.schedule_id,
        skill_id: 'echo',
        caller: { id: me.id },
        trace_id: 'schedule-trace',
        priority: 'high',
      });
    }
    const { final } = await client.waitForEnd('echo', String(ids.at(-1)), 20_000, me.headers);
    expect(final).toMatchObject({
      status: 'completed',
      schedule_id: schedule.schedule_id,
      output: { text: 'tick' },
    });
    // Another schedule's runs are not this one's.
    expect(await executionsOf('sch_none', me.headers)).toEqual([]);

    const removed = await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
    expect(removed.status).toBe(204);
    const gone = await client.requestAvailable<Envelope>(`/schedules/${schedule.schedule_id}`, {
      headers: me.headers,
    });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('SCHEDULE_NOT_FOUND');
  });

  it('starts one execution per due time with two gateways taking due times, on a 6-field cron in a time zone', async () => {
    const me = await newCaller();
    const schedule = await created(
      me.headers,
      { skill_id: 'echo', cron: '*/1 * * * * *', timezone: 'Europe/Paris', inputs: { text: 'cron' } },
      replica,
    );
    expect(schedule.timezone).toBe('Europe/Paris');
    const times = schedule.next_runs.map((at) => Date.parse(at));
    expect(times.slice(1).map((at, i) => at - (times[i] as number))).toEqual([1000, 1000, 1000, 1000]);
    expect(times.every((at) => at % 1000 === 0)).toBe(true);
    await runsUntil(schedule.schedule_id, me.headers, (runs) => launched(runs).length >= 5);
    expect((await patch(schedule.schedule_id, me.headers, { paused: true })).status).toBe(200);
    // Paused, the due times taken already settle; then every run is one execution, and every execution one run.
    await expect
      .poll(async () => {
        const runs = launched((await read(schedule.schedule_id, me.headers)).last_runs ?? []);
        const listed = await executionsOf(schedule.schedule_id, me.headers);
        return (
          listed
            .map((execution) => execution.execution_id)
            .sort()
            .join() ===
          runs
            .map((run) => run.execution_id)
            .sort()
            .join()
        );
      })
      .toBe(true);
    const runs = launched((await read(schedule.schedule_id, me.headers)).last_runs ?? []);
    expect(new Set(runs.map((run) => run.due_at)).size).toBe(runs.length);
    expect(runs.every((run) => Date.parse(run.due_at) % 1000 === 0)).toBe(true);
  });

  it('pauses, resumes, changes and deletes a schedule', async () => {
    const me = await newCaller();
    const paused = await created(me.headers, {
      skill_id: 'echo',
      every_ms: 1000,
      inputs: { text: 'one' },
      paused: true,
    });
    expect(paused.paused).toBe(true);
    expect(paused.next_runs).toEqual([]);
    const witness = await created(me.headers, {
      skill_id: 'echo',
      every_ms: 1000,
      inputs: { text: 'witness' },
    });
    // While another schedule runs twice, the paused one runs never.
    await runsUntil(witness.schedule_id, me.headers, (runs) => launched(runs).length >= 2);
    expect((await read(paused.schedule_id, me.headers)).last_runs).toEqual([]);

    const resumed = await patch(paused.schedule_id, me.headers, { paused: false });
    expect(resumed.status).toBe(200);
    expect(resumed.body.next_runs).toHaveLength(5);
    await runsUntil(paused.schedule_id, me.headers, (runs) => launched(runs).length >= 1);

    const changed = await patch(paused.schedule_id, me.headers, { inputs: { text: 'two' }, every_ms: 2000 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ inputs: { text: 'two' }, every_ms: 2000 });
    const times = changed.body.next_runs.map((at) => Date.parse(at));
    expect(times.slice(1).map((at, i) => at - (times[i] as number))).toEqual([2000, 2000, 2000, 2000]);
    const runs = await runsUntil(paused.schedule_id, me.headers, (found) =>
      // Due since the change: a due time run as it was made reads what it said then.
      launched(found).some((run) => Date.parse(run.due_at) >= Date.parse(changed.body.updated_at)),
    );
    const latest = launched(runs).find(
      (run) => Date.parse(run.due_at) >= Date.parse(changed.body.updated_at),
    );
    const { final } = await client.waitForEnd('echo', String(latest?.execution_id), 20_000, me.headers);
    expect(final.output).toMatchObject({ text: 'two' });

    const refused = await patch(paused.schedule_id, me.headers, { inputs: { text: 42 } });
    expect(refused.status).toBe(400);
    expect((refused.body as unknown as Envelope).error.code).toBe('INVALID_INPUT');
    const both = await patch(paused.schedule_id, me.headers, { cron: '* * * * *', every_ms: 1000 });
    expect(both.status).toBe(400);
    const delayed = await patch(paused.schedule_id, me.headers, { context: { delay_ms: 1000 } });
    expect([delayed.status, (delayed.body as unknown as Envelope).error.code]).toEqual([
      400,
      'INVALID_INPUT',
    ]);

    const pausedAgain = await patch(paused.schedule_id, me.headers, { paused: true });
    expect(pausedAgain.body.next_runs).toEqual([]);
    const removed = await client.requestAvailable(`/schedules/${paused.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
    expect(removed.status).toBe(204);
    const list = await client.requestAvailable<ScheduleListPage>('/schedules', { headers: me.headers });
    expect(list.body.schedules.map((schedule) => schedule.schedule_id)).toEqual([witness.schedule_id]);
    await client.requestAvailable(`/schedules/${witness.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
  });

  it('records a failed run, and starts nothing, once the key the schedule was made with is revoked', async () => {
    const me = await newCaller();
    const schedule = await created(me.headers, { skill_id: 'echo', every_ms: 1000, inputs: { text: 'key' } });
    await runsUntil(schedule.schedule_id, me.headers, (runs) => launched(runs).length >= 1);
    const keyId = me.key.slice(4, 20);
    expect(
      (await client.request(`/admin/keys/${keyId}`, { method: 'DELETE', headers: ADMIN_HEADERS })).status,
    ).toBe(204);
    // Read as the admin: the revoked key reads nothing.
    const runs = await runsUntil(
      schedule.schedule_id,
      ADMIN_HEADERS,
      (found) => found.filter((run) => run.outcome === 'failed').length >= 2,
    );
    const failed = runs.filter((run) => run.outcome === 'failed');
    for (const run of failed) {
      expect(run.execution_id).toBeUndefined();
      expect(run.error).toMatchObject({ code: 'AUTH_REQUIRED' });
    }
    const afterRevocation = runs.slice(
      0,
      runs.findIndex((run) => run.outcome === 'launched'),
    );
    expect(afterRevocation.every((run) => run.outcome === 'failed')).toBe(true);
    const listed = await client.requestAvailable<{ executions: Execution[] }>(
      `/executions?schedule_id=${schedule.schedule_id}&caller_id=${me.id}&limit=100`,
      { headers: ADMIN_HEADERS },
    );
    expect(listed.body.executions.map((execution) => execution.execution_id).sort()).toEqual(
      launched(runs)
        .map((run) => run.execution_id)
        .sort(),
    );
    await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
  });

  it('skips a due time while the previous run goes on (overlap: skip)', async () => {
    const me = await newCaller();
    const schedule = await created(me.headers, {
      skill_id: 'sleepy',
      every_ms: 1000,
      inputs: { ms: 2500 },
      overlap: 'skip',
    });
    expect(schedule.overlap).toBe('skip');
    const runs = await runsUntil(
      schedule.schedule_id,
      me.headers,
      (found) => found.some((run) => run.outcome === 'skipped') && launched(found).length >= 2,
    );
    const launchedIds = launched(runs).map((run) => run.execution_id);
    for (const run of runs.filter((found) => found.outcome === 'skipped')) {
      // What it waited for: a run of its own schedule.
      expect(launchedIds).toContain(run.execution_id);
    }
    // One run at a time: each launched run started after the one before it ended.
    const finals = await Promise.all(
      launchedIds.map(
        async (id) => (await client.waitForEnd('sleepy', String(id), 20_000, me.headers)).final,
      ),
    );
    const spans = finals
      .map((execution) => [
        Date.parse(execution.timestamps.created_at),
        Date.parse(String(execution.timestamps.completed_at)),
      ])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]?.[0]).toBeGreaterThanOrEqual(spans[i - 1]?.[1] as number);
    await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
  });

  it('backfills a past window: each due time without a run runs once, a paused schedule’s too', async () => {
    const me = await newCaller();
    const schedule = await created(me.headers, {
      skill_id: 'echo',
      cron: '0 * * * *',
      inputs: { text: 'backfilled' },
      paused: true,
    });
    const hour = 3_600_000;
    const now = Date.now();
    const from = Math.floor(now / hour) * hour - 3 * hour;
    const expected = [0, 1, 2, 3].map((k) => from + k * hour).filter((at) => at < now);
    const window = { from: new Date(from).toISOString(), to: new Date(now).toISOString() };
    const backfill = (body: Record<string, unknown>, headers = me.headers) =>
      client.requestAvailable<Record<string, unknown>>(`/schedules/${schedule.schedule_id}/backfill`, {
        json: body,
        headers,
      });
    const answer = await backfill(window);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const iso = expected.map((at) => new Date(at).toISOString());
    expect(answer.body).toEqual({
      schedule_id: schedule.schedule_id,
      ...window,
      queued: iso,
      already_run: [],
    });

    const runs = await runsUntil(
      schedule.schedule_id,
      me.headers,
      (found) => launched(found).length === iso.length,
    );
    expect(runs.map((run) => run.due_at).sort()).toEqual(iso);
    for (const run of runs) {
      const { final } = await client.waitForEnd('echo', String(run.execution_id), 20_000, me.headers);
      expect(final).toMatchObject({ status: 'completed', schedule_id: schedule.schedule_id });
    }
    // Asked again, nothing runs twice.
    const again = await backfill(window);
    expect(again.body).toMatchObject({ queued: [], already_run: iso });
    expect((await executionsOf(schedule.schedule_id, me.headers)).length).toBe(iso.length);

    const refused = async (body: Record<string, unknown>, status: number, code: string, path?: string) => {
      const bad = await backfill(body);
      expect(bad.status, JSON.stringify(bad.body)).toBe(status);
      expect(bad.body).toMatchObject({ error: { code } });
      if (path) expect((bad.body as Envelope).error.details?.map((detail) => detail.path)).toContain(path);
    };
    await refused({ ...window, to: new Date(now + hour).toISOString() }, 400, 'PARAM_OUT_OF_RANGE', '/to');
    await refused({ from: window.to, to: window.from }, 400, 'PARAM_OUT_OF_RANGE', '/to');
    await refused(
      { from: new Date(now - 200 * 24 * hour).toISOString(), to: window.to },
      400,
      'PARAM_OUT_OF_RANGE',
      '/from',
    );
    await refused({ ...window, overlap: 'skip' }, 400, 'INVALID_INPUT');
    await refused({ from: 'yesterday', to: window.to }, 400, 'INVALID_INPUT');
    const stranger = await newCaller();
    const other = await backfill(window, stranger.headers);
    expect(other.status).toBe(404);
    await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
  });

  it('refuses a bad cron, time zone or interval, inputs, and a schedule past MAX_SCHEDULES_PER_CALLER, with the envelope', async () => {
    const me = await newCaller();
    const base = { skill_id: 'echo', inputs: { text: 'x' } };
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ ...base, cron: 'not a cron' }, 400, 'INVALID_INPUT', '/cron'],
      [{ ...base, cron: '61 * * * *' }, 400, 'INVALID_INPUT', '/cron'],
      [{ ...base, cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 400, 'INVALID_INPUT', '/timezone'],
      [{ ...base, every_ms: 999 }, 400, 'INVALID_INPUT', '/every_ms'],
      [{ ...base, every_ms: 1000, cron: '* * * * *' }, 400, 'INVALID_INPUT', '/cron'],
      [{ ...base }, 400, 'INVALID_INPUT', '/cron'],
      [{ ...base, every_ms: 1000, timezone: 'UTC' }, 400, 'INVALID_INPUT', '/timezone'],
      [{ ...base, every_ms: 1000, inputs: { text: 42 } }, 400, 'INVALID_INPUT', '/inputs/text'],
      // A schedule's timing is its cron or every_ms: a run is not delayed past its due time.
      [{ ...base, every_ms: 1000, context: { delay_ms: 1000 } }, 400, 'INVALID_INPUT', '/context/delay_ms'],
      [
        { ...base, every_ms: 1000, context: { run_at: '2030-01-01T00:00:00Z' } },
        400,
        'INVALID_INPUT',
        '/context/run_at',
      ],
      // Nor does a run join an execution another call's debounce key has open.
      [
        { ...base, every_ms: 1000, context: { debounce: { key: 'k', delay_ms: 1000 } } },
        400,
        'INVALID_INPUT',
        '/context/debounce',
      ],
      [{ ...base, every_ms: 1000, context: { delay: 1000 } }, 400, 'INVALID_INPUT', '/context/delay'],
      [{ ...base, skill_id: 'no_such_skill', every_ms: 1000 }, 404, 'SKILL_NOT_FOUND'],
      [{ ...base, every_ms: 1000, caller: { id: 'someone-else', type: 'user' } }, 403, 'ACCESS_DENIED'],
    ];
    for (const [body, status, code, path] of cases) {
      const answer = await create(me.headers, body);
      expect([answer.status, (answer.body as unknown as Envelope).error?.code], JSON.stringify(body)).toEqual(
        [status, code],
      );
      if (path)
        expect((answer.body as unknown as Envelope).error.details?.map((detail) => detail.path)).toContain(
          path,
        );
    }
    const anonymous = await create({}, { ...base, every_ms: 1000 });
    expect([anonymous.status, (anonymous.body as unknown as Envelope).error.code]).toEqual([
      401,
      'AUTH_REQUIRED',
    ]);

    const made: Schedule[] = [];
    for (let i = 0; i < MAX_SCHEDULES; i++) {
      made.push(await created(me.headers, { ...base, cron: '0 0 1 1 *', paused: i === 0 }));
    }
    const over = await create(me.headers, { ...base, cron: '0 0 1 1 *' });
    expect(over.status).toBe(429);
    expect((over.body as unknown as Envelope).error.code).toBe('SCHEDULE_LIMIT_EXCEEDED');
    const [first] = made;
    await client.requestAvailable(`/schedules/${first?.schedule_id}`, {
      method: 'DELETE',
      headers: me.headers,
    });
    made.shift();
    made.push(await created(me.headers, { ...base, cron: '0 0 1 1 *' }));
    for (const schedule of made) {
      await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
        method: 'DELETE',
        headers: me.headers,
      });
    }
  });

  it("keeps a caller's schedules its own: another's is 404, an admin lists everyone's, with filters and cursors", async () => {
    const [alice, bob] = [await newCaller(), await newCaller()];
    const yearly = { cron: '0 0 1 1 *', inputs: {} };
    const mine = await created(alice.headers, { skill_id: 'echo', ...yearly, inputs: { text: 'a' } });
    const second = await created(alice.headers, { skill_id: 'sleepy', ...yearly });
    const theirs = await created(bob.headers, { skill_id: 'echo', ...yearly, inputs: { text: 'b' } });
    for (const [method, json] of [
      ['GET', undefined],
      ['PATCH', { paused: true }],
      ['DELETE', undefined],
    ] as const) {
      const answer: Answer<Envelope> = await client.requestAvailable<Envelope>(
        `/schedules/${theirs.schedule_id}`,
        {
          method,
          headers: alice.headers,
          ...(json ? { json } : {}),
        },
      );
      expect([method, answer.status, answer.body.error.code]).toEqual([method, 404, 'SCHEDULE_NOT_FOUND']);
    }
    const own = await client.requestAvailable<ScheduleListPage>('/schedules', { headers: alice.headers });
    expect(own.body.schedules.map((schedule) => schedule.schedule_id)).toEqual([
      mine.schedule_id,
      second.schedule_id,
    ]);
    const nosy = await client.requestAvailable<Envelope>(`/schedules?caller_id=${bob.id}`, {
      headers: alice.headers,
    });
    expect(nosy.status).toBe(403);

    const admin = await client.requestAvailable<ScheduleListPage>(`/schedules?caller_id=${bob.id}`, {
      headers: ADMIN_HEADERS,
    });
    expect(admin.body.schedules.map((schedule) => schedule.schedule_id)).toEqual([theirs.schedule_id]);
    expect((await read(theirs.schedule_id, ADMIN_HEADERS)).caller.id).toBe(bob.id);
    const echoes = await client.requestAvailable<ScheduleListPage>(
      `/schedules?caller_id=${alice.id}&skill_id=echo`,
      {
        headers: ADMIN_HEADERS,
      },
    );
    expect(echoes.body.schedules.map((schedule) => schedule.schedule_id)).toEqual([mine.schedule_id]);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer<ScheduleListPage> = await client.requestAvailable<ScheduleListPage>(
        `/schedules?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: alice.headers },
      );
      pages.push(...page.body.schedules.map((schedule) => schedule.schedule_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual([mine.schedule_id, second.schedule_id]);
    const badCursor = await client.requestAvailable<Envelope>('/schedules?cursor=nope', {
      headers: alice.headers,
    });
    expect(badCursor.status).toBe(400);

    for (const [schedule, caller] of [
      [mine, alice],
      [second, alice],
      [theirs, bob],
    ] as const) {
      await client.requestAvailable(`/schedules/${schedule.schedule_id}`, {
        method: 'DELETE',
        headers: caller.headers,
      });
    }
  });
});
