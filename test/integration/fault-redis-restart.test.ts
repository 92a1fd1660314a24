import { RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

// Fault suite 2: Redis killed (SIGKILL) and started again from its append-only file (fsync every
// second) while 2,000 invocations stream in; and the gateway frozen (SIGSTOP) while its launches are
// in flight, so that their replies come after its Redis deadline though Redis applied them (what a
// busy event loop does). Either way: every invocation answered 202 reaches a terminal status, every
// other one got a clean 503 with Retry-After and never ran, and the processes carry on by themselves.

const CONNECTIONS = 20;
const keys = new RedisKeys('{skillrun}');

interface Refusal {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

interface Stream {
  /** Input text → execution id, for the invocations answered 202. */
  accepted: Map<string, string>;
  refusals: Refusal[];
  /** Where the worker's log stood when the stream began. */
  logFrom: number;
}

describe('fault suite: Redis away or late under a stream of invocations', () => {
  let system: TestSystem;
  let worker: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start({}, { persistent: true });
    worker = await system.addWorker({
      WORKER_SKILLS: 'echo',
      WORKER_CONCURRENCY: '16',
      JOB_LOCK_MS: '2000',
      STALLED_CHECK_INTERVAL_MS: '500',
    });
  });
  afterAll(() => system?.stop());

  /**
   * `count` invocations of echo over CONNECTIONS connections, each text `${prefix}${n}`; `fault`
   * starts once `faultAfter` have been accepted. A refused one waits Retry-After, as a client would.
   */
  async function streamInvocations(
    prefix: string,
    count: number,
    faultAfter: number,
    fault: () => Promise<void>,
  ): Promise<Stream> {
    const stream: Stream = { accepted: new Map(), refusals: [], logFrom: worker.logs.length };
    let next = 0;
    let faulted: Promise<void> | undefined;
    const connection = async () => {
      while (next < count) {
        const text = `${prefix}${next++}`;
        const answer = await system.client.invoke('echo', { text });
        if (answer.status === 202) {
          stream.accepted.set(text, String(answer.body.execution_id));
        } else {
          const retryAfter = answer.headers.get('retry-after');
          const { error } = answer.body as { error?: { code?: string } };
          stream.refusals.push({ status: answer.status, code: error?.code, retryAfter });
          await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
        }
        if (stream.accepted.size >= faultAfter) faulted ??= fault();
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, connection));
    await faulted;
    return stream;
  }

  /** The texts of the executions recorded in Redis whose text starts with `prefix`. */
  async function recordedTexts(prefix: string): Promise<string[]> {
    const redis = new Redis(system.redis.url);
    try {
      const texts: string[] = [];
      for await (const batch of redis.scanStream({ match: keys.execution('*'), count: 1000 })) {
        // The records themselves, not their outcome STRINGs.
        const records = (batch as string[]).filter(
          (key) => !key.slice(keys.execution('').length).includes(':'),
        );
        for (const key of records) {
          const inputs = await redis.hget(key, 'inputs');
          const text = inputs === null ? undefined : (JSON.parse(inputs) as { text: string }).text;
          if (text?.startsWith(prefix)) texts.push(text);
        }
      }
      return texts.sort();
    } finally {
      redis.disconnect();
    }
  }

  /** The executions the worker completed since `from` in its log. */
  const completedOnWorker = (from: number) =>
    worker.logs
      .slice(from)
      .filter((line) => line.msg === 'execution completed')
      .map((line) => String(line.execution_id))
      .sort();

  /** Every refusal a clean 503; every 202 completed; exactly the accepted ones recorded and run. */
  async function expectTruthful(prefix: string, { accepted, refusals, logFrom }: Stream): Promise<string> {
    for (const refusal of refusals) {
      expect(refusal).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
    }
    const ids = [...accepted.values()];
    const finals = await system.client.waitForEnds('echo', ids, 60_000);
    expect(finals.map(({ status }) => status).filter((status) => status !== 'completed')).toEqual([]);
    // None refused was recorded, let alone run: a 503 means the invocation did not happen.
    expect(await recordedTexts(prefix)).toEqual([...accepted.keys()].sort());
    // Nor run by the worker. (An accepted one whose outcome's reply was lost with Redis may be
    // logged as already ended on its second run rather than completed: its record says completed.)
    const acceptedIds = new Set(ids);
    expect(completedOnWorker(logFrom).filter((id) => !acceptedIds.has(id))).toEqual([]);
    return `${accepted.size} accepted, all completed; ${refusals.length} refused with 503 + Retry-After, none of them recorded or run`;
  }

  it('Redis SIGKILLed and restarted: every 202 ends, the rest are 503s that never ran', async () => {
    const outageMs = 1500;
    const stream = await streamInvocations('kill-', 2000, 500, async () => {
      await system.redis.kill();
      await new Promise((resolve) => setTimeout(resolve, outageMs));
      await system.redis.restart();
    });
    const figure = await expectTruthful('kill-', stream);
    expect(stream.accepted.size).toBeGreaterThan(500);
    console.log(
      `fault 2: 2000 invocations, Redis killed after 500 accepted and back ${outageMs} ms later: ${figure}`,
    );
  });

  it('gateway frozen with launches in flight (replies past its deadline): a 503 still means nothing ran', async () => {
    const { child } = system.gateway.process;
    const freezes = 3;
    const stream = await streamInvocations('late-', 1000, 100, async () => {
      for (let i = 0; i < freezes; i++) {
        child.kill('SIGSTOP');
        // Longer than REDIS_TIMEOUT_MS (800): every reply waiting in its socket is late when it wakes.
        await new Promise((resolve) => setTimeout(resolve, 1200));
        child.kill('SIGCONT');
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    });
    const figure = await expectTruthful('late-', stream);
    console.log(`fault 2 (late replies): 1000 invocations, the gateway frozen ${freezes} × 1.2 s: ${figure}`);
  });
});
