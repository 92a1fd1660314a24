import type { Redis } from 'ioredis';
import type { Execution, StepSummary } from '../../schemas/execution';
import type { RedisKeys } from '../keys/redis-keys';
import { type StepEntry, stepEntriesOf, stepSummary } from './execution-record';
import type { ExecutionTransitions } from './execution-transitions';
import type { TransitionResult } from './transition-script';

/** A composite's steps, as its record keeps them in its `steps` field. */
export class ExecutionSteps {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly transitions: ExecutionTransitions,
  ) {}

  /** The steps so far. */
  async entries(executionId: string): Promise<StepEntry[]> {
    const steps = await this.redis.hget(this.keys.execution(executionId), 'steps');
    return stepEntriesOf(steps === null ? {} : { steps });
  }

  /**
   * Replaces a running composite's steps; refused once the execution is final. `startedAt`: when the
   * run that launched them started (the execution's start, the first time).
   */
  set(executionId: string, entries: StepEntry[], startedAt: number): Promise<TransitionResult> {
    return this.transitions.running(executionId, startedAt, { steps: JSON.stringify(entries) });
  }
}

/**
 * A composite's steps with each one's status, read from its own record (`get`), for the composite
 * as the protocol shows it; undefined for an execution without steps.
 */
export async function stepSummaries(
  fields: Record<string, string>,
  get: (executionId: string) => Promise<Execution | null>,
): Promise<StepSummary[] | undefined> {
  const entries = stepEntriesOf(fields);
  if (entries.length === 0) return undefined;
  return Promise.all(
    entries.map(async (entry) => {
      if (!('execution_id' in entry)) return stepSummary(entry, null);
      return stepSummary(entry, (await get(entry.execution_id))?.status);
    }),
  );
}
