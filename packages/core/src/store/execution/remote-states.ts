import type { Redis } from 'ioredis';
import type { RedisKeys } from '../keys/redis-keys';
import type { ExecutionTransitions } from './execution-transitions';
import type { TransitionResult } from './transition-script';

/** How far an attempt's call to a remote provider has got: its execution there, its polls, and failed ones in a row. */
export interface RemoteState {
  attempt: number;
  executionId?: string;
  polls: number;
  failures: number;
}

/** Where the call of an execution to a remote provider stands (remote-body.ts), kept in its record. */
export class RemoteStates {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly transitions: ExecutionTransitions,
  ) {}

  /** The state as `set` last wrote it. */
  async state(executionId: string): Promise<RemoteState> {
    const [attempt, id, polls, failures] = await this.redis.hmget(
      this.keys.execution(executionId),
      'remote_attempt',
      'remote_execution_id',
      'remote_polls',
      'remote_failures',
    );
    return {
      attempt: Number(attempt ?? 0),
      ...(id ? { executionId: id } : {}),
      polls: Number(polls ?? 0),
      failures: Number(failures ?? 0),
    };
  }

  /** Notes where the call stands; refused once the execution has ended. */
  set(executionId: string, state: RemoteState, startedAt: number): Promise<TransitionResult> {
    return this.transitions.running(executionId, startedAt, {
      remote_attempt: state.attempt,
      remote_execution_id: state.executionId ?? '',
      remote_polls: state.polls,
      remote_failures: state.failures,
    });
  }
}
