import { describe, expect, it } from 'vitest';
import { StreamBudget } from '../../apps/worker/src/streaming/stream-budget';

describe('StreamBudget: what an attempt may stream', () => {
  it('takes chunks up to both bounds, counting bytes of JSON (UTF-8)', () => {
    const budget = new StreamBudget({ maxChunkBytes: 8, maxStreamBytes: 12 });
    expect(budget.take('"abcdef"')).toBeUndefined(); // 8 bytes: at the chunk bound
    expect(budget.take('"é"')).toBeUndefined(); // 4 bytes: 12 in all, at the total bound
    expect(budget.exceeded).toBeUndefined();
    const over = budget.take('1');
    expect(over?.toBody()).toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
      recoverable: false,
      details: { bytes: 13, limit: 12 },
    });
    expect(over?.message).toContain('MAX_STREAM_BYTES');
  });

  it('refuses a chunk over its bound, and every chunk after the first refusal', () => {
    const budget = new StreamBudget({ maxChunkBytes: 4, maxStreamBytes: 100 });
    const over = budget.take('"abcd"');
    expect(over?.toBody()).toMatchObject({ code: 'OUTPUT_TOO_LARGE', details: { bytes: 6, limit: 4 } });
    expect(over?.message).toContain('MAX_CHUNK_BYTES');
    expect(budget.take('1')).toBe(over);
    expect(budget.exceeded).toBe(over);
  });
});
