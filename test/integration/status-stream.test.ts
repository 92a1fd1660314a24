import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStream } from '../support/event-stream';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

describe('live status: GET events (server-sent events)', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ MAX_STREAMS_PER_CALLER: '2' });
    await system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/stream-skills` });
  });
  afterAll(() => system?.stop());

  const start = async (steps: number, pauseMs: number) => {
    const accepted = await system.client.invoke('stepper', { steps, pause_ms: pauseMs });
    expect(accepted.status).toBe(202);
    return String(accepted.body.execution_id);
  };

  it('sends a snapshot, then every progress change, then the end, and closes', async () => {
    const id = await start(4, 150);
    const { status, events, contentType } = await readStream(
      `${system.gateway.url}/skills/stepper/events/${id}`,
    );
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(events.every((event) => event.event === 'status' && event.execution.execution_id === id)).toBe(
      true,
    );
    const progress = events.map((event) => event.execution.progress).filter((value) => value !== undefined);
    expect(progress).toEqual([...progress].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)?.execution).toMatchObject({ status: 'completed', output: { steps: 4 } });
    const ids = events.map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('serves any execution from any gateway, and resumes after Last-Event-ID without repeating it', async () => {
    const replica = await system.addGateway();
    const id = await start(4, 250);
    const first = await readStream(`${replica.url}/skills/stepper/events/${id}`, { stopAfter: 2 });
    expect(first.events).toHaveLength(2);
    const last = first.events[1];
    const resumed = await readStream(`${system.gateway.url}/skills/stepper/events/${id}`, {
      lastEventId: last?.id ?? '',
    });
    expect(resumed.events.length).toBeGreaterThan(0);
    expect(Number(resumed.events[0]?.id)).toBeGreaterThanOrEqual(Number(last?.id));
    expect(resumed.events[0]?.execution).not.toEqual(last?.execution);
    expect(resumed.events.at(-1)?.execution.status).toBe('completed');
    // Reconnecting once it has ended and been seen: nothing new, and the stream closes.
    const after = await readStream(`${system.gateway.url}/skills/stepper/events/${id}`, {
      lastEventId: resumed.events.at(-1)?.id ?? '',
    });
    expect(after.events).toEqual([]);
  });

  it('bounds the streams a caller keeps open (429), and answers 404 for an unknown execution', async () => {
    const id = await start(3, 400);
    const url = `${system.gateway.url}/skills/stepper/events/${id}`;
    const open = [readStream(url), readStream(url)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await fetch(url);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMIT_EXCEEDED');
    await Promise.all(open);
    const missing = await fetch(
      `${system.gateway.url}/skills/stepper/events/00000000-0000-4000-8000-000000000000`,
    );
    expect(missing.status).toBe(404);
  });
});
