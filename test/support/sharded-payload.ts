import type { JobPayload } from '@skillrun/core';
import { newJobPayload } from '@skillrun/core/data';

/** The skill the sharding tests launch straight through ExecutionLauncher. */
export const SHARDED_SKILL = { name: 'echo', version: '1.0.0', retry: 0 };

/** A job payload of SHARDED_SKILL under `executionId` (a minted one names its vshard). */
export function shardedPayload(executionId: string): JobPayload {
  return newJobPayload(
    {
      skill_id: SHARDED_SKILL.name,
      skill_version: SHARDED_SKILL.version,
      inputs: { text: 'sharded' },
      caller: { id: 'tester', type: 'user' },
      trace_id: 'trace-sharded',
      priority: 'normal',
    },
    executionId,
  );
}
