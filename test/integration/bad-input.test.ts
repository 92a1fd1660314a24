import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

interface Envelope {
  error: {
    code: string;
    message: string;
    recoverable: boolean;
    details?: { path: string; message: string }[];
  };
}

describe('bad input gets the spec error envelope, before anything is enqueued', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ BODY_LIMIT_BYTES: '4096' });
    await system.addWorker({ WORKER_SKILLS: 'echo' });
  });
  afterAll(() => system?.stop());

  const invokeRaw = (skillId: string, body: string, contentType = 'application/json') =>
    system.client.request<Envelope>(`/skills/${skillId}/invoke`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });

  /** Writes `request` on a raw socket and resolves with everything the server sends back. */
  function rawExchange(request: string): Promise<string> {
    const { hostname, port } = new URL(system.gateway.url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(request));
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString();
      });
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
  }

  it('answers headers over the limit with 431 and malformed HTTP with 400, both in the error envelope', async () => {
    const huge = await rawExchange(
      `POST /skills/echo/invoke HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toMatch(/content-type: application\/json/i);
    const hugeBody = JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4)) as Envelope;
    expect(hugeBody.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', recoverable: false });
    const garbled = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbled).toMatch(/^HTTP\/1\.1 400 /);
    const garbledBody = JSON.parse(garbled.slice(garbled.indexOf('\r\n\r\n') + 4)) as Envelope;
    expect(garbledBody.error.code).toBe('INVALID_INPUT');
  });

  it('answers 400 with one detail per violation of the input schema, each naming its path and code', async () => {
    const answer = await system.client.invoke('echo', {
      count: 99,
      mode: 'shout',
      extra: true,
      when: 'yesterday',
    });
    expect(answer.status).toBe(400);
    const { error } = answer.body as unknown as Envelope;
    expect(error.code).toBe('MISSING_REQUIRED_PARAM');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/inputs/text', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
        { path: '/inputs/count', message: 'must be <= 10', code: 'PARAM_OUT_OF_RANGE' },
        { path: '/inputs/mode', message: 'must be one of ["plain","loud"]', code: 'INVALID_INPUT' },
        { path: '/inputs/extra', message: 'is not a declared property', code: 'INVALID_INPUT' },
        { path: '/inputs/when', message: 'must match format "date-time"', code: 'INVALID_INPUT' },
      ]),
    );
    expect(error.details).toHaveLength(5);
    expect(error.message).toContain('[inputs -> text] is required');
    expect(JSON.stringify(answer.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('validates the envelope: caller, skill_id, inputs and context', async () => {
    const cases: [unknown, string][] = [
      [{ skill_id: 'echo', inputs: { text: 'x' } }, '/caller'],
      [{ caller: { id: 'a', type: 'robot' }, skill_id: 'echo', inputs: { text: 'x' } }, '/caller/type'],
      [{ caller: { id: 'a', type: 'user' }, inputs: { text: 'x' } }, '/skill_id'],
      [{ caller: { id: 'a', type: 'user' }, skill_id: 'echo', inputs: 'x' }, '/inputs'],
      [
        { caller: { id: 'a', type: 'user' }, skill_id: 'echo', inputs: {}, context: { priority: 'urgent' } },
        '/context/priority',
      ],
      [
        { caller: { id: 'a', type: 'user' }, skill_id: 'echo', inputs: {}, context: { timeout_ms: -5 } },
        '/context/timeout_ms',
      ],
      // An unknown context field is a typo to point out, not to ignore (this one would run at once).
      [
        {
          caller: { id: 'a', type: 'user' },
          skill_id: 'echo',
          inputs: { text: 'x' },
          context: { delay: 5000 },
        },
        '/context/delay',
      ],
      [{ caller: { id: 'a', type: 'user' }, skill_id: 'other', inputs: { text: 'x' } }, '/skill_id'],
      [[1, 2, 3], '/'],
    ];
    for (const [body, path] of cases) {
      const answer = await invokeRaw('echo', JSON.stringify(body));
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_INPUT');
      expect(answer.body.error.details?.map((detail) => detail.path)).toContain(path);
    }
  });

  it('refuses malformed JSON, other media types and oversized bodies with the envelope', async () => {
    const malformed = await invokeRaw('echo', '{"caller": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('INVALID_INPUT');

    const text = await invokeRaw('echo', 'hello', 'text/plain');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const huge = await invokeRaw('echo', JSON.stringify({ pad: 'x'.repeat(10_000) }));
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 404 for unknown skills, executions and routes', async () => {
    const { client } = system;
    const unknownSkill = await client.invoke('no_such_skill', {});
    expect(unknownSkill.status).toBe(404);
    expect((unknownSkill.body as unknown as Envelope).error.code).toBe('SKILL_NOT_FOUND');
    expect((await client.request<Envelope>('/skills/no_such_skill')).status).toBe(404);

    const id = '00000000-0000-4000-8000-000000000000';
    for (const step of ['status', 'result']) {
      const answer = await client.request<Envelope>(`/skills/echo/${step}/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('EXECUTION_NOT_FOUND');
    }
    const route = await client.request<Envelope>('/nowhere');
    expect(route.status).toBe(404);
    expect(route.body.error.code).toBe('NOT_FOUND');
  });

  it('does not show an execution under another skill id', async () => {
    const { final } = await system.client.run('echo', { text: 'mine' });
    const elsewhere = await system.client.request<Envelope>(`/skills/other/status/${final.execution_id}`);
    expect(elsewhere.status).toBe(404);
  });

  it('still serves after all of it', async () => {
    const { final } = await system.client.run('echo', { text: 'ok' });
    expect(final.status).toBe('completed');
  });
});
