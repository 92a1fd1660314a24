import type { Redis } from 'ioredis';
import type { RedisKeys } from '../store/keys/redis-keys';
import type { TaskNote, TaskRouting } from './task-note';

/**
 * How long a note outlives its execution's retention: it is written when the task starts, and the
 * execution's retention starts when it ends (as an invocation's own webhook, WebhookStore).
 */
const EXTRA_SECONDS = 86_400;

/**
 * What A2A keeps of its tasks beside their executions (A2A-only, so not in the record): the
 * context a client's message named, and how a plain-text message was routed. A caller's contexts
 * each list their tasks, for ListTasks' contextId filter. Nothing is written for a task that has
 * neither (its context is its own id).
 */
export class TaskNotes {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    executionTtlSeconds: number,
  ) {
    this.ttlSeconds = executionTtlSeconds + EXTRA_SECONDS;
  }

  /** Notes a new task; `owner` (its authenticated caller) files it under its context. */
  async write(taskId: string, owner: string | undefined, note: TaskNote): Promise<void> {
    if (note.contextId === undefined && note.routing === undefined) return;
    const key = this.keys.callers.a2aTask(taskId);
    const fields = {
      ...(note.contextId === undefined ? {} : { context_id: note.contextId }),
      ...(note.routing === undefined ? {} : { routing: JSON.stringify(note.routing) }),
    };
    const write = this.redis.multi().hset(key, fields).expire(key, this.ttlSeconds);
    if (note.contextId !== undefined && owner !== undefined) {
      const context = this.keys.callers.a2aContext(owner, note.contextId);
      write.sadd(context, taskId).expire(context, this.ttlSeconds);
    }
    await write.exec();
  }

  async read(taskId: string): Promise<TaskNote> {
    return noteOf(await this.redis.hgetall(this.keys.callers.a2aTask(taskId)));
  }

  /** Each task's note, in the order of `taskIds` (one round trip). */
  async readMany(taskIds: readonly string[]): Promise<TaskNote[]> {
    if (taskIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of taskIds) pipeline.hgetall(this.keys.callers.a2aTask(id));
    const answers = (await pipeline.exec()) ?? [];
    return answers.map(([error, fields]) => {
      if (error) throw error;
      return noteOf(fields as Record<string, string>);
    });
  }

  /** The tasks a caller started in a context it named. */
  async inContext(owner: string, contextId: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(this.keys.callers.a2aContext(owner, contextId)));
  }
}

function noteOf(fields: Record<string, string>): TaskNote {
  return {
    ...(fields.context_id === undefined ? {} : { contextId: fields.context_id }),
    ...(fields.routing === undefined ? {} : { routing: JSON.parse(fields.routing) as TaskRouting }),
  };
}
