import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStream, type StreamEvent } from '../support/event-stream';
import { ADMIN_HEADERS, repoRoot, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

/** Whether the events hold the end of this execution. */
const endedIn = (events: StreamEvent[], executionId: string) =>
  events.some(
    (event) => event.execution.execution_id === executionId && event.execution.status === 'completed',
  );

describe("a caller's executions live: GET /executions/events", () => {
  let system: TestSystem;
  let replica: StartedGateway;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.start({ MAX_STREAMS_PER_CALLER: '2' });
    replica = await system.addGateway();
    await system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/stream-skills` });
    alice = { 'x-api-key': await system.client.createKey('alice') };
    bob = { 'x-api-key': await system.client.createKey('bob') };
  });
  afterAll(() => system?.stop());

  const stepper = (headers: Record<string, string>, caller: string, steps = 4, pauseMs = 250) =>
    system.client.invokeAs(caller, 'stepper', { steps, pause_ms: pauseMs }, headers);

  it('needs credentials, and only an admin follows another caller', async () => {
    expect((await fetch(`${system.gateway.url}/executions/events`)).status).toBe(401);
    const denied = await fetch(`${system.gateway.url}/executions/events?caller_id=alice`, { headers: bob });
    expect(denied.status).toBe(403);
    const bad = await fetch(`${system.gateway.url}/executions/events?nope=1`, { headers: bob });
    expect(bad.status).toBe(400);
  });

  it("starts with the caller's running executions, then every change of its executions, and none of others'", async () => {
    const before = await stepper(alice, 'alice', 6, 300);
    // Running before the stream opens: the snapshot shows it, then its changes follow.
    await expect
      .poll(async () => (await system.client.status('stepper', before, alice)).progress ?? 0)
      .toBeGreaterThan(0);
    let after = '';
    let others = '';
    const { status, events, contentType } = await readStream(`${system.gateway.url}/executions/events`, {
      headers: alice,
      until: (seen) => {
        if (after === '' && seen.length > 0) {
          // Invoked once the stream is open, through another gateway: alice's, and bob's beside it.
          after = 'pending';
          void stepper(alice, 'alice', 3, 100).then((id) => {
            after = id;
          });
          void stepper(bob, 'bob', 2, 50).then((id) => {
            others = id;
          });
        }
        return endedIn(seen, before) && after !== 'pending' && endedIn(seen, after);
      },
    });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(events[0]?.execution).toMatchObject({ execution_id: before, status: 'running' });
    const progressOf = (id: string) =>
      events
        .filter((event) => event.execution.execution_id === id)
        .map((event) => event.execution.progress ?? 0);
    expect(progressOf(before).length).toBeGreaterThanOrEqual(3);
    expect(progressOf(before)).toEqual([...progressOf(before)].sort((a, b) => a - b));
    expect(progressOf(after).length).toBeGreaterThanOrEqual(2);
    expect(events.every((event) => event.execution.caller.id === 'alice')).toBe(true);
    expect(events.some((event) => event.execution.execution_id === others)).toBe(false);
  });

  it('resumes after Last-Event-ID without losing an event, on any gateway', async () => {
    let id = '';
    // An observer that stays connected throughout sees every event of the execution.
    const whole = readStream(`${system.gateway.url}/executions/events?caller_id=alice`, {
      headers: ADMIN_HEADERS,
      until: (seen) => id !== '' && endedIn(seen, id),
    });
    // Invoked through the other gateway once the streams are surely open (their snapshots may be empty).
    setTimeout(() => {
      void stepper(alice, 'alice', 8, 200).then((started) => {
        id = started;
      });
    }, 300);
    const first = await readStream(`${replica.url}/executions/events`, {
      headers: alice,
      until: (seen) =>
        seen.some((event) => event.execution.execution_id === id && (event.execution.progress ?? 0) > 0),
    });
    const last = first.events.at(-1);
    const resumed = await readStream(`${system.gateway.url}/executions/events`, {
      headers: alice,
      lastEventId: last?.id ?? '',
      until: (seen) => endedIn(seen, id),
    });
    const ofExecution = (events: StreamEvent[]) =>
      events.filter((event) => event.execution.execution_id === id).map((event) => event.id);
    const seenWhole = ofExecution((await whole).events);
    expect(seenWhole.length).toBeGreaterThanOrEqual(3);
    // Across the two streams, each change once: exactly what the observer saw.
    expect([...ofExecution(first.events), ...ofExecution(resumed.events)]).toEqual(seenWhole);
  });

  it('lets an admin follow a caller, and bounds the streams a caller keeps open (429)', async () => {
    const id = await stepper(bob, 'bob', 3, 200);
    const watched = await readStream(`${system.gateway.url}/executions/events?caller_id=bob`, {
      headers: ADMIN_HEADERS,
      until: (seen) => endedIn(seen, id),
    });
    expect(endedIn(watched.events, id)).toBe(true);
    const url = `${system.gateway.url}/executions/events`;
    const longRun = await stepper(bob, 'bob', 10, 300);
    let opened = 0;
    const counted = (done: (seen: StreamEvent[]) => boolean) => (seen: StreamEvent[]) => {
      if (seen.length === 1) opened++;
      return done(seen);
    };
    const open = [
      readStream(url, { headers: bob, until: counted((seen) => endedIn(seen, longRun)) }),
      readStream(`${system.gateway.url}/skills/stepper/events/${longRun}`, {
        headers: bob,
        until: counted(() => false),
      }),
    ];
    // Both are open once each has sent its first event: a third, of either kind, is one too many.
    await expect.poll(() => opened).toBe(2);
    const third = await fetch(url, { headers: bob });
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMIT_EXCEEDED');
    await Promise.all(open);
  });
});
