import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import { type ExecutionRecords, fieldsOf, type ReadableExecution } from './execution-records';
import FOLLOW from './follow-changes.lua';

/**
 * Who hears of an execution's changes besides its readers (transition.lua tells them): a watcher
 * subscribed to its inbox, marked by the read that starts its wait (ExecutionRecords.read's
 * `watcher`), and a caller's event stream that follows it through the notifications stream.
 */
export class ExecutionWatchers {
  private readonly followScript: RedisScript<number>;

  constructor(
    redis: Redis,
    private readonly keys: RedisKeys,
    private readonly records: ExecutionRecords,
  ) {
    this.followScript = redisScript(redis, 'skillrunFollow', FOLLOW);
  }

  /** From now on every change of the execution is a notification; false when it has ended or is gone. */
  async follow(executionId: string): Promise<boolean> {
    return (await this.followScript([this.keys.execution(executionId)], [])) === 1;
  }

  /**
   * The execution an announcement in a watcher's inbox shows (transition.lua; `message` is what
   * follows its execution id's line): null when it says only the new status, the record as it ended
   * when it says the end, read without asking Redis again.
   */
  async announced(executionId: string, message: string): Promise<ReadableExecution | null> {
    const record = message.indexOf('\n');
    const outcome = message.indexOf('\n', record + 1);
    if (record === -1 || outcome === -1) return null;
    const flat = JSON.parse(message.slice(record + 1, outcome)) as string[];
    const outcomeApart = message.slice(outcome + 1);
    return this.records.readable(executionId, fieldsOf(flat, outcomeApart === '' ? null : outcomeApart));
  }
}
