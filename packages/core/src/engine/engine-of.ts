import type { DurabilityOptions } from './durable-writes';
import { ExecutionEngine, type ExecutionEngineOptions } from './execution-engine';

/**
 * What a process has built that the engine works over (its connection, keys, store, queues and
 * slots), and the setting every process reads for it (CommonConfig's RETRY_BACKOFF_MS).
 */
export interface EngineParts
  extends Pick<ExecutionEngineOptions, 'redis' | 'keys' | 'store' | 'queues' | 'handover'> {
  config: { RETRY_BACKOFF_MS: number };
}

/**
 * The engine over a process's shared parts: the gateway's and the worker's are made the same way,
 * but for `durability` (ACK_REPLICAS), which only the gateway's writes confirm.
 */
export function engineOf(parts: EngineParts, durability?: DurabilityOptions): ExecutionEngine {
  const { redis, keys, store, queues, handover, config } = parts;
  return new ExecutionEngine({
    redis,
    keys,
    store,
    queues,
    handover,
    retryBackoffMs: config.RETRY_BACKOFF_MS,
    ...(durability === undefined ? {} : { durability }),
  });
}
