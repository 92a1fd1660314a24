import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { StreamedChunk } from '../../schemas/streamed-chunk';
import type { RedisKeys } from '../keys/redis-keys';
import APPEND from './append-chunks.lua';

/** What an append did: the seq of its last chunk, or why nothing was kept. */
export type ChunkAppend = { appended: number } | { refused: 'missing' | 'ended' };

/**
 * The chunks a stream keeps at most (MAXLEN ~, so a little over): a reader that falls further
 * behind a skill that emits many small chunks (an llm skill's deltas) finds the oldest gone, and
 * sees the gap in the seqs. Bytes are bounded before they get here (MAX_STREAM_BYTES).
 */
export const CHUNK_STREAM_MAX_LENGTH = 10_000;

/**
 * An execution's streamed output (ctx.emit, an llm skill's deltas), in a Redis STREAM of its own
 * beside the record: numbered from 1 in the order emitted, kept while the execution runs and for
 * the retention period after it ends, like the record; any gateway reads it.
 */
export class ExecutionChunks {
  private readonly appendScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.appendScript = redisScript(redis, 'skillrunAppendChunks', APPEND);
  }

  /** Appends chunks (each one's JSON), in order, while the execution has not ended. */
  async append(executionId: string, chunksJson: string[]): Promise<ChunkAppend> {
    const reply = await this.appendScript(
      [this.keys.execution(executionId), this.keys.chunks(executionId)],
      [executionId, CHUNK_STREAM_MAX_LENGTH, this.keys.watcherInboxes(), ...chunksJson],
    );
    if (reply > 0) return { appended: reply };
    return { refused: reply === 0 ? 'missing' : 'ended' };
  }

  /**
   * The chunks after seq `after` (0: from the first), in order, at most `limit` of them: the
   * function every surface that streams output reads with (server-sent events, MCP, A2A). Fewer
   * than asked means none more for now; a trimmed stream starts past `after + 1`.
   */
  async read(executionId: string, after: number, limit: number): Promise<StreamedChunk[]> {
    const entries = (await this.redis.xrange(
      this.keys.chunks(executionId),
      `(${after}-0`,
      '+',
      'COUNT',
      limit,
    )) as [string, string[]][];
    return entries.map(([id, fields]) => ({
      seq: Number.parseInt(id, 10),
      chunk: JSON.parse(fields[1] ?? 'null') as unknown,
    }));
  }
}
