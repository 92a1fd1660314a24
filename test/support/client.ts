import { type Execution, isTerminalStatus } from '@skillrun/core';
import { ADMIN_HEADERS } from './service-process';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** How many times invokeAs and requestAvailable ask again after a 503. */
const UNAVAILABLE_TRIES = 10;

/** A consumer of the protocol, speaking real HTTP to a gateway. */
export class Client {
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    path: string,
    init: RequestInit & { json?: unknown } = {},
  ): Promise<Answer<T>> {
    const { json, ...rest } = init;
    const response = await fetch(`${this.baseUrl}${path}`, {
      ...rest,
      headers: { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...rest.headers },
      ...(json === undefined ? {} : { body: JSON.stringify(json), method: rest.method ?? 'POST' }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as T };
  }

  /**
   * A request asked again after a 503 (up to UNAVAILABLE_TRIES times), as spec 001's consumers do:
   * it means Redis answered later than REDIS_TIMEOUT_MS, which a loaded machine sees now and then,
   * and nothing happened. For tests of what the answer is once the gateway could decide.
   */
  async requestAvailable<T = Record<string, unknown>>(
    path: string,
    init: RequestInit & { json?: unknown } = {},
  ): Promise<Answer<T>> {
    for (let tries = 1; ; tries++) {
      const answer = await this.request<T>(path, init);
      if (answer.status !== 503 || tries === UNAVAILABLE_TRIES) return answer;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  invoke(
    skillId: string,
    inputs: unknown,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    return this.request<Record<string, unknown>>(`/skills/${skillId}/invoke`, {
      json: { caller: { id: 'tester', type: 'service' }, skill_id: skillId, inputs, ...extra },
      headers,
    });
  }

  /** A new API key for `callerId` (made with the admin key), to invoke and read as that caller. */
  async createKey(callerId: string, scopes = ['skill:invoke', 'skill:read']): Promise<string> {
    const created = await this.request<{ key: string }>('/admin/keys', {
      json: { caller_id: callerId, scopes },
      headers: ADMIN_HEADERS,
    });
    if (created.status !== 201) throw new Error(`POST /admin/keys answered ${created.status}`);
    return created.body.key;
  }

  /**
   * Invokes as an authenticated caller (its key in `headers`); returns the execution id, or throws.
   * A 503 is asked again, as spec 001's consumers do: it means the invocation did not happen (a
   * Redis call ran past REDIS_TIMEOUT_MS, which a loaded machine sees now and then).
   */
  async invokeAs(
    caller: string,
    skillId: string,
    inputs: unknown,
    headers: Record<string, string>,
  ): Promise<string> {
    for (let tries = 1; ; tries++) {
      const answer = await this.invoke(skillId, inputs, { caller: { id: caller, type: 'user' } }, headers);
      if (answer.status === 202) return String(answer.body.execution_id);
      if (answer.status !== 503 || tries === UNAVAILABLE_TRIES)
        throw new Error(`invoke answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async status(
    skillId: string,
    executionId: string,
    headers: Record<string, string> = {},
  ): Promise<Execution> {
    const answer = await this.request<Execution>(`/skills/${skillId}/status/${executionId}`, { headers });
    if (answer.status !== 200)
      throw new Error(`status answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  cancel(skillId: string, executionId: string, headers: Record<string, string> = {}) {
    return this.request<Execution & { error?: { code: string; details?: { status?: string } } }>(
      `/skills/${skillId}/cancel/${executionId}`,
      { method: 'POST', headers },
    );
  }

  /** Polls status until the execution is final (or the deadline passes); returns every status seen. */
  async waitForEnd(
    skillId: string,
    executionId: string,
    timeoutMs = 20_000,
    headers: Record<string, string> = {},
  ): Promise<{ final: Execution; seen: string[] }> {
    const deadline = Date.now() + timeoutMs;
    const seen: string[] = [];
    for (;;) {
      const answer = await this.request<Execution>(`/skills/${skillId}/status/${executionId}`, { headers });
      // Redis slow or away for a moment: ask again, as for any 503 (until the deadline).
      if (answer.status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (answer.status !== 200)
        throw new Error(`status answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      const execution = answer.body;
      if (seen.at(-1) !== execution.status) seen.push(execution.status);
      if (isTerminalStatus(execution.status)) return { final: execution, seen };
      if (Date.now() > deadline) throw new Error(`execution ${executionId} still ${execution.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * The final status of each of many executions, polled by at most `parallel` loops at a time, as a
   * client would: a thousand loops at once would open a thousand sockets to the gateway, which a
   * loaded machine answers with resets (a keep-alive socket reused as the gateway closes it).
   */
  async waitForEnds(skillId: string, executionIds: string[], timeoutMs: number, parallel = 20) {
    const finals = new Array<Execution>(executionIds.length);
    let next = 0;
    const loop = async () => {
      for (let index = next++; index < executionIds.length; index = next++) {
        const id = executionIds[index] as string;
        finals[index] = (await this.waitForEnd(skillId, id, timeoutMs)).final;
      }
    };
    await Promise.all(Array.from({ length: parallel }, loop));
    return finals;
  }

  /** Invokes and waits for the end; asserts the 202 on the way. */
  async run(skillId: string, inputs: unknown, extra: Record<string, unknown> = {}) {
    const accepted = await this.invoke(skillId, inputs, extra);
    if (accepted.status !== 202)
      throw new Error(`invoke answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
    return this.waitForEnd(skillId, String(accepted.body.execution_id));
  }
}
