import type { SkillDefinition } from '@skillrun/core';
import { RateStarts } from '@skillrun/core/data';
import type { WorkerShared } from '../worker-shared';
import { ExecutionSlots } from './execution-slots';
import { FlowControl } from './flow-control';
import { SkillStarts } from './skill-starts';

/**
 * The worker's side of the limits on how many executions run at once, and how often they start
 * (docs/skills.md, "What limits a skill's parallelism", says how they combine with the gateway's).
 */
export interface FlowPart {
  /** The process's WORKER_CONCURRENCY, shared by every queue it consumes. */
  slots: ExecutionSlots;
  /** The skills' concurrency limits (skill.json `concurrency`): an execution over one is parked. */
  control: FlowControl;
  /** A hosted version's rate limit (skill.json `rate_limit`), read from its current definition. */
  starts(definition: () => SkillDefinition): SkillStarts;
}

export function buildFlow({ config, metrics, redis, keys, gate, handover }: WorkerShared): FlowPart {
  const rate = new RateStarts(redis, keys);
  return {
    slots: new ExecutionSlots(config.WORKER_CONCURRENCY),
    control: new FlowControl({ gate, handover, metrics }),
    starts: (definition) => new SkillStarts(rate, definition, metrics),
  };
}
