import type { ChainableCommander } from 'ioredis';

/** Runs a pipeline or MULTI and returns each reply; any command's error rejects the whole. */
export async function execAll(batch: ChainableCommander): Promise<unknown[]> {
  const results = (await batch.exec()) ?? [];
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
