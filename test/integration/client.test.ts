import { type Execution, type SkillDescriptor, SkillrunClient, SkillrunError } from '@skillrun/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutAfterEvents } from '../support/cut-stream';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Sent {
  method: string;
  url: string;
  headers: Headers;
}

/** fetch, recording what the client sends. */
function recordingFetch() {
  const sent: Sent[] = [];
  const fetchAndRecord: typeof fetch = (input, init = {}) => {
    sent.push({ method: init.method ?? 'GET', url: String(input), headers: new Headers(init.headers) });
    return fetch(input, init);
  };
  return { sent, fetch: fetchAndRecord };
}

describe('the TypeScript client against the service', () => {
  let system: TestSystem;
  let client: SkillrunClient;

  beforeAll(async () => {
    system = await TestSystem.start();
    await Promise.all([
      system.addWorker(),
      system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/stream-skills` }),
    ]);
    client = new SkillrunClient({ baseUrl: system.gateway.url });
  });
  afterAll(() => system?.stop());

  it('lists, pages, searches and describes skills', async () => {
    const first = await client.listSkills({ limit: 2 });
    expect(first.skills).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await client.listSkills({ limit: 2, cursor: first.next_cursor ?? '' });
    expect(second.skills.map((skill) => skill.id)).not.toContain(first.skills[0]?.id);

    const found = await client.searchSkills('progress');
    expect(found.skills.map((skill) => skill.id)).toEqual(['stepper']);

    const stepper = await client.describe('stepper');
    expect(stepper.endpoint['x-events_url']).toContain('{execution_id}');
    const versions = await client.versions('echo');
    expect(versions).toMatchObject({ skill_id: 'echo', latest: '1.0.0' });
    expect(versions.versions[0]?.descriptor_url).toContain('/skills/echo');
    const byUrl = await client.describe(`${system.gateway.url}/skills/echo?version=^1`);
    expect(byUrl).toMatchObject({ id: 'echo', version: '1.0.0' });
    await expect(client.describe('no_such_skill')).rejects.toMatchObject({
      code: 'SKILL_NOT_FOUND',
      httpStatus: 404,
    });
  });

  it('waits over the live status (events URL), with every progress change on the way', async () => {
    const { sent, fetch } = recordingFetch();
    const streaming = new SkillrunClient({ baseUrl: system.gateway.url, fetch });
    const handle = await streaming.invoke('stepper', { steps: 4, pause_ms: 150 });
    expect(handle.eventsUrl).toBe(`${system.gateway.url}/skills/stepper/events/${handle.executionId}`);
    const updates: Execution[] = [];

    const ended = await streaming.wait(handle, { onUpdate: (execution) => updates.push(execution) });

    expect(ended).toMatchObject({ status: 'completed', output: { steps: 4 } });
    const progress = updates.map((execution) => execution.progress).filter((value) => value !== undefined);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(sent.filter((request) => request.url === handle.eventsUrl)).toHaveLength(1);
    expect(sent.some((request) => request.url === handle.statusUrl)).toBe(false);
  });

  it('reconnects a dropped live status with Last-Event-ID and follows it to the end', async () => {
    const { sent, fetch: record } = recordingFetch();
    let dropped = false;
    const dropping: typeof fetch = async (input, init) => {
      const response = await record(input, init);
      if (dropped || !String(input).includes('/events/') || !response.body) return response;
      dropped = true;
      // The first event gets through, then the connection breaks.
      return cutAfterEvents(response, 1);
    };
    const streaming = new SkillrunClient({ baseUrl: system.gateway.url, fetch: dropping });
    const handle = await streaming.invoke('stepper', { steps: 4, pause_ms: 200 });
    const ids: string[] = [];

    const ended = await streaming.wait(handle, { onUpdate: (execution) => ids.push(execution.execution_id) });

    expect(ended).toMatchObject({ status: 'completed', output: { steps: 4 } });
    const streams = sent.filter((request) => request.url === handle.eventsUrl);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]?.headers.get('last-event-id')).toBeNull();
    expect(Number(streams[1]?.headers.get('last-event-id'))).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set([handle.executionId]));
  });

  it('long-polls status_url when the descriptor names no events URL', async () => {
    const { sent, fetch } = recordingFetch();
    const polling = new SkillrunClient({ baseUrl: system.gateway.url, fetch });
    const described = await polling.describe('stepper');
    const { 'x-events_url': _events, ...endpoint } = described.endpoint;
    const withoutEvents: SkillDescriptor = { ...described, endpoint };
    const handle = await polling.invoke(withoutEvents, { steps: 3, pause_ms: 100 });
    expect(handle.eventsUrl).toBeUndefined();

    const ended = await polling.wait(handle);

    expect(ended).toMatchObject({ status: 'completed', output: { steps: 3 } });
    const reads = sent.filter((request) => request.url === handle.statusUrl);
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.every((request) => request.headers.get('prefer') === 'wait=30')).toBe(true);
    expect(sent.some((request) => request.url.includes('/events/'))).toBe(false);
  });

  it('invokeAndWait answers the output, or throws the execution’s error code', async () => {
    expect(await client.invokeAndWait('echo', { text: 'hi' })).toMatchObject({ text: 'hi', count: 1 });
    expect(await client.skill('echo').invokeAndWait({ text: 'typed', count: 2 })).toMatchObject({
      text: 'typedtyped', // echo repeats its text count times
      count: 2,
    });

    const failure = await client.invokeAndWait('thrower', {}).catch((error) => error);
    expect(failure).toBeInstanceOf(SkillrunError);
    expect(failure).toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      execution: { status: 'failed', skill_id: 'thrower' },
    });

    const refused = await client.invoke('echo', { text: '' }).catch((error) => error);
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', httpStatus: 400 });
  });

  it('invokeAndWait gets the end of a short execution in its one POST (Prefer: wait), and follows it live with onUpdate', async () => {
    const { sent, fetch } = recordingFetch();
    const recorded = new SkillrunClient({ baseUrl: system.gateway.url, fetch });
    await recorded.describe('echo');
    sent.length = 0;
    expect(await recorded.invokeAndWait('echo', { text: 'once' })).toMatchObject({ text: 'once' });
    expect(sent.map(({ method, url }) => `${method} ${new URL(url).pathname}`)).toEqual([
      'POST /skills/echo/invoke',
    ]);
    expect(sent[0]?.headers.get('prefer')).toBe('wait=30');

    sent.length = 0;
    const seen: string[] = [];
    await recorded.invokeAndWait(
      'echo',
      { text: 'live' },
      { onUpdate: (execution) => seen.push(execution.status) },
    );
    expect(sent[0]?.headers.get('prefer')).toBeNull();
    expect(sent.some(({ url }) => url.includes('/events/'))).toBe(true);
    expect(seen.at(-1)).toBe('completed');
  });

  it('reads status and result by skill and execution id', async () => {
    const handle = await client.invoke('echo', { text: 'ids' });
    const ref = { skillId: 'echo', executionId: handle.executionId };
    await client.wait(ref);
    expect(await client.status(ref)).toMatchObject({ status: 'completed', execution_id: handle.executionId });
    expect((await client.result(ref)).output).toMatchObject({ text: 'ids', count: 1 });
  });

  it('cancels an execution, and says EXECUTION_ENDED for one that ended otherwise', async () => {
    const handle = await client.invoke('stepper', { steps: 20, pause_ms: 1000 });
    const canceled = await client.cancel(handle);
    expect(canceled).toMatchObject({ status: 'canceled', error: { code: 'EXECUTION_CANCELED' } });
    await expect(client.wait(handle)).resolves.toMatchObject({ status: 'canceled' });

    const done = await client.invoke('echo', { text: 'done' });
    await client.wait(done);
    await expect(client.cancel(done)).rejects.toMatchObject({ code: 'EXECUTION_ENDED', httpStatus: 409 });
  });

  it('with an API key: owns its executions and lists them; without one the listing is AUTH_REQUIRED', async () => {
    const key = await system.client.createKey('client-user');
    // No caller given: the client learns it from GET /me.
    const owner = new SkillrunClient({ baseUrl: system.gateway.url, apiKey: key });
    expect(await owner.me()).toMatchObject({ caller_id: 'client-user', method: 'api_key' });
    const handle = await owner.invoke('echo', { text: 'mine' });
    await owner.wait(handle);
    const page = await owner.executions({ skill_id: 'echo', status: ['completed'] });
    expect(page.executions.map((execution) => execution.execution_id)).toContain(handle.executionId);
    expect(page.executions.every((execution) => execution.caller?.id === 'client-user')).toBe(true);

    const anonymous = await client.executions().catch((error) => error);
    expect(anonymous).toBeInstanceOf(SkillrunError);
    expect(anonymous).toMatchObject({ code: 'AUTH_REQUIRED', httpStatus: 401 });
    // Another caller cannot read it: the same 404 as for an execution that does not exist.
    await expect(client.status(handle)).rejects.toMatchObject({ httpStatus: 404 });
  });

  it('runs a batch: each item in its place, waits for its end, lists its executions, cancels one', async () => {
    const owner = new SkillrunClient({
      baseUrl: system.gateway.url,
      apiKey: await system.client.createKey('batcher'),
    });
    const accepted = await owner.batch([
      { skill_id: 'echo', inputs: { text: 'one' } },
      { skill_id: 'echo', inputs: { text: 42 } },
      { skill_id: 'stepper', inputs: { steps: 2, pause_ms: 50 } },
    ]);
    expect(accepted.executions.map((slot) => ('error' in slot ? slot.error.code : 'started'))).toEqual([
      'started',
      'INVALID_INPUT',
      'started',
    ]);
    const updates: boolean[] = [];
    const ended = await owner.waitBatch(accepted.batch_id, { onUpdate: (view) => updates.push(view.ended) });
    expect(ended).toMatchObject({ ended: true, items: 3, counts: { completed: 2 } });
    expect(updates.at(-1)).toBe(true);
    const page = await owner.executions({ batch_id: accepted.batch_id });
    expect(page.executions.map((execution) => execution.batch_id)).toEqual([
      accepted.batch_id,
      accepted.batch_id,
    ]);

    const slow = await owner.batch([{ skill_id: 'sleepy', inputs: { ms: 4000 } }]);
    const canceled = await owner.cancelBatch(slow.batch_id);
    expect(canceled).toMatchObject({ ended: true, counts: { canceled: 1 } });
    await expect(client.getBatch(slow.batch_id)).rejects.toMatchObject({
      code: 'BATCH_NOT_FOUND',
      httpStatus: 404,
    });
  });

  it('makes, lists, reads, pauses and deletes a schedule, whose runs are its executions', async () => {
    const key = await system.client.createKey('client-scheduler');
    const owner = new SkillrunClient({ baseUrl: system.gateway.url, apiKey: key });
    const schedule = await owner.createSchedule({
      skill_id: 'echo',
      every_ms: 1000,
      inputs: { text: 'again' },
    });
    expect(schedule).toMatchObject({ skill_id: 'echo', every_ms: 1000, caller: { id: 'client-scheduler' } });
    expect(schedule.next_runs).toHaveLength(5);
    expect((await owner.listSchedules()).schedules.map((found) => found.schedule_id)).toEqual([
      schedule.schedule_id,
    ]);
    await expect
      .poll(async () => (await owner.getSchedule(schedule.schedule_id)).last_runs?.length ?? 0, {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    const paused = await owner.updateSchedule(schedule.schedule_id, { paused: true });
    expect(paused).toMatchObject({ paused: true, next_runs: [] });
    const runs = await owner.executions({ schedule_id: schedule.schedule_id });
    expect(runs.executions[0]).toMatchObject({ schedule_id: schedule.schedule_id, skill_id: 'echo' });
    await owner.deleteSchedule(schedule.schedule_id);
    await expect(owner.getSchedule(schedule.schedule_id)).rejects.toMatchObject({
      code: 'SCHEDULE_NOT_FOUND',
      httpStatus: 404,
    });
    await expect(
      owner.createSchedule({ skill_id: 'echo', every_ms: 10, inputs: { text: 'x' } }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', httpStatus: 400 });
  });

  it('aborts a wait with the signal’s reason, and gives up at timeoutMs with WAIT_TIMEOUT', async () => {
    const handle = await client.invoke('stepper', { steps: 20, pause_ms: 1000 });
    const controller = new AbortController();
    const updates: Execution[] = [];
    const waiting = client.wait(handle, {
      signal: controller.signal,
      onUpdate: (execution) => updates.push(execution),
    });
    await expect.poll(() => updates.length).toBeGreaterThan(0);
    controller.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toThrow('no longer needed');

    const late = await client.wait(handle, { timeoutMs: 300 }).catch((error) => error);
    expect(late).toMatchObject({ code: 'WAIT_TIMEOUT', execution: { execution_id: handle.executionId } });
    await client.cancel(handle);
  });

  it('retries an invocation whose answer was lost without running it twice (Idempotency-Key)', async () => {
    const answers: Array<{ executionId: string; replayed: string | null }> = [];
    let lose = true;
    const lossy: typeof fetch = async (input, init = {}) => {
      const response = await fetch(input, init);
      if (init.method !== 'POST') return response;
      const body = (await response.clone().json()) as { execution_id: string };
      answers.push({ executionId: body.execution_id, replayed: response.headers.get('idempotent-replayed') });
      if (lose) {
        lose = false;
        throw new TypeError('fetch failed: the connection dropped before the answer');
      }
      return response;
    };
    const flaky = new SkillrunClient({
      baseUrl: system.gateway.url,
      fetch: lossy,
      retry: { initialDelayMs: 10 },
    });

    const handle = await flaky.invoke('echo', { text: 'once' });

    expect(answers).toHaveLength(2);
    expect(answers[1]).toEqual({ executionId: answers[0]?.executionId, replayed: 'true' });
    expect(handle.executionId).toBe(answers[0]?.executionId);
  });
});
