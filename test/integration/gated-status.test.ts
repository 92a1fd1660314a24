import {
  ConcurrencyGate,
  type ExecutionLauncher,
  ExecutionStore,
  newJobPayload,
  skillQueueName,
} from '@skillrun/core/data';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchKeys as keys,
  LAUNCH_PREFIX,
  type ProxiedLauncher,
  startProxiedLauncher,
} from '../support/proxied-launcher';

// What status says of an execution whose job a worker has taken, read as a gateway reads it, with
// real BullMQ taking the job. A skill with concurrency limits is admitted to its slots only after
// its job is taken (parked if none is free): until then it has not started, and status must not
// say running for a moment, then accepted again when it is parked (a status never goes backwards).

const limits = { limit: 1 };
const gatedSkill = { name: 'one_at_a_time', version: '1.0.0', retry: 0, concurrency: limits };
const plainSkill = { name: 'echo', version: '1.0.0', retry: 0 };

describe('the status of an execution whose job a worker has just taken', () => {
  let proxied: ProxiedLauncher;
  let launcher: ExecutionLauncher;
  let store: ExecutionStore;
  let connection: Redis;
  let gate: ConcurrencyGate;

  beforeAll(async () => {
    proxied = await startProxiedLauncher();
    ({ launcher } = proxied);
    connection = new Redis(proxied.redis.url, { maxRetriesPerRequest: null });
    store = new ExecutionStore(connection, keys, 3600);
    gate = new ConcurrencyGate(connection, keys);
  });
  afterAll(async () => {
    connection?.disconnect();
    await proxied?.close();
  });

  /** Launches one execution of `skill`, and answers what `during` saw while its job was taken. */
  async function takeOne<T>(
    skill: typeof gatedSkill | typeof plainSkill,
    during: (executionId: string) => Promise<T>,
  ): Promise<T> {
    const payload = newJobPayload({
      skill_id: skill.name,
      skill_version: skill.version,
      inputs: {},
      caller: { id: 'tester', type: 'user' },
      trace_id: 'trace-gated',
      priority: 'normal',
    });
    let taken!: (seen: Promise<T>) => void;
    const seen = new Promise<Promise<T>>((resolve) => {
      taken = resolve;
    });
    const worker = new Worker(
      skillQueueName(skill.name, skill.version),
      async (job: Job) => {
        const looked = during(job.id as string);
        taken(looked);
        await looked;
      },
      { connection, prefix: LAUNCH_PREFIX },
    );
    try {
      await launcher.launch({ payload, skill });
      return await await seen;
    } finally {
      await worker.close();
    }
  }

  const statusOf = async (executionId: string) => ({
    read: (await store.records.read(executionId))?.execution.status,
    brief: (await store.records.brief(executionId))?.status,
  });

  it('is accepted until the gate admits it, then running', async () => {
    const [beforeAdmission, afterAdmission] = await takeOne(gatedSkill, async (executionId) => {
      const before = await statusOf(executionId);
      const admitted = await gate.admit({ executionId, skillId: gatedSkill.name, limits });
      expect(admitted.verdict).toBe('run');
      return [before, await statusOf(executionId)];
    });
    expect(beforeAdmission).toEqual({ read: 'accepted', brief: 'accepted' });
    expect(afterAdmission).toEqual({ read: 'running', brief: 'running' });
  });

  it('is running as soon as it is taken when its skill has no concurrency limits', async () => {
    const seen = await takeOne(plainSkill, statusOf);
    expect(seen).toEqual({ read: 'running', brief: 'running' });
  });
});
