import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { Execution } from '../../schemas/execution';
import type { JobPayload } from '../../schemas/job-payload';
import type { RedisKeys } from '../keys/redis-keys';
import CALL from './debounce-call.lua';
import START from './debounce-start.lua';
import type { ExecutionIndex } from './execution-index';
import { type RecordExtras, recordFields, toExecution } from './execution-record';

/**
 * How long past its delay a trailing key stays open at most while its execution waits for a
 * worker: a key left open by an execution that never started lapses.
 */
const TRAILING_OPEN_MS = 86_400_000;

/**
 * What a debounced call came to: the execution its key had open (a trailing one's due time, as the
 * call moved it), or a new one (its record written).
 */
export type DebouncedCall = { joined: string; dueAt?: number } | { created: Execution };

/** A trailing debounced execution as it starts: the last call's inputs, and when it was due. */
export interface DebouncedStart {
  inputs: Record<string, unknown>;
  /** Epoch ms: `delay_ms` after the last call that joined it, or its start if that came first. */
  dueAt: number;
}

/**
 * Debounced invocations (context.debounce): the calls of one caller with one key, for one skill,
 * collapse into one execution while its key is open (debounce-call.lua). The key is the caller's
 * own, so two callers never collapse into each other. A debounced execution is on its skill's home
 * vshard (ShardMap.home), with its key: the script reads the open one's record.
 */
export class ExecutionDebounce {
  private readonly callScript: RedisScript<string[]>;
  private readonly startScript: RedisScript<[string, string] | null>;

  constructor(
    redis: Redis,
    private readonly keys: RedisKeys,
    private readonly index: ExecutionIndex,
    private readonly clock: () => number = Date.now,
  ) {
    this.callScript = redisScript(redis, 'skillrunDebounceCall', CALL);
    this.startScript = redisScript(redis, 'skillrunDebounceStart', START);
  }

  /**
   * Joins the execution the payload's key has open (trailing: it takes this call's inputs, and is
   * due `delayMs` from now), or writes `payload`'s record and opens the key on it.
   */
  async call(payload: JobPayload, extras: RecordExtras, delayMs: number): Promise<DebouncedCall> {
    const key = this.keyOf(payload);
    if (!payload.debounce || key === undefined) throw new Error('the payload is not debounced');
    const { mode, max_delay_ms: maxDelayMs } = payload.debounce;
    const now = this.clock();
    const fields = recordFields(payload, extras, now);
    const [outcome, open, due] = await this.callScript(
      [key, this.keys.execution(payload.execution_id)],
      [
        this.keys.flow.homeRecords(payload.skill_id),
        mode,
        mode === 'leading' ? delayMs : delayMs + TRAILING_OPEN_MS,
        payload.skill_version,
        JSON.stringify(payload.inputs),
        payload.execution_id,
        now + delayMs,
        maxDelayMs ?? '',
        now,
        ...Object.entries(fields).flat(),
      ],
    );
    if (outcome === 'joined')
      return { joined: open as string, ...(due === undefined ? {} : { dueAt: Number(due) }) };
    await this.index.add(payload.execution_id, payload.owner, now);
    return { created: toExecution(payload.execution_id, fields) as Execution };
  }

  /**
   * As a trailing debounced execution starts: closes its key (a call from now on starts a new
   * execution) and answers its inputs as the last call that joined it left them, and its due time.
   */
  async start(payload: JobPayload): Promise<DebouncedStart | null> {
    const key = this.keyOf(payload);
    if (key === undefined) return null;
    const started = await this.startScript(
      [key, this.keys.execution(payload.execution_id)],
      [payload.execution_id, this.clock()],
    );
    if (started === null) return null;
    const [inputs, dueAt] = started;
    return { inputs: JSON.parse(inputs) as Record<string, unknown>, dueAt: Number(dueAt) };
  }

  /** The payload's debounce key, its caller's own (an anonymous caller's by the id it gives). */
  private keyOf({ skill_id, owner, caller, debounce }: JobPayload): string | undefined {
    if (!debounce) return undefined;
    return this.keys.flow.debounce(skill_id, owner ?? `anonymous:${caller.id}`, debounce.mode, debounce.key);
  }
}
