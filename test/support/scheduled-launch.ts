import { randomUUID } from 'node:crypto';
import type { Execution } from '@skillrun/core';
import {
  ExecutionLauncher,
  ExecutionStore,
  newJobPayload,
  type QueueRegistry,
  type RedisKeys,
} from '@skillrun/core/data';
import type { Redis } from 'ioredis';

/**
 * Launches a schedule's run of the `echo` fixture under `executionId`, as a gateway that died
 * before recording the run would have left it: what the next try must find rather than launch again.
 */
export function launchScheduledEcho(
  redis: Redis,
  { keys, queues }: { keys: RedisKeys; queues: QueueRegistry },
  scheduleId: string,
  executionId: string,
): Promise<Execution> {
  return new ExecutionLauncher({
    redis,
    store: new ExecutionStore(redis, keys, 3600),
    queues,
    retryBackoffMs: 100,
  }).launch({
    payload: newJobPayload(
      {
        skill_id: 'echo',
        skill_version: '1.0.0',
        inputs: { text: 'due', count: 1 },
        caller: { id: 'admin', type: 'service' },
        trace_id: randomUUID().replaceAll('-', ''),
        priority: 'normal',
        owner: 'admin',
      },
      executionId,
    ),
    skill: { name: 'echo', version: '1.0.0', retry: 0 },
    origin: { kind: 'schedule-run', scheduleId, executionId },
  });
}
