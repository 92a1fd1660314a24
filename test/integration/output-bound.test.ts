import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/output-skills', import.meta.url));
const MAX_OUTPUT_BYTES = 100_000;

describe('MAX_OUTPUT_BYTES: an output over the bound fails the execution instead of filling Redis', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    await system.addWorker({ MAX_OUTPUT_BYTES: String(MAX_OUTPUT_BYTES) });
  });
  afterAll(() => system?.stop());

  it('fails a 50 MB output with OUTPUT_TOO_LARGE at once (no retry), storing none of it', async () => {
    const { final } = await system.client.run('sized_output', { bytes: 50_000_000 });
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
      recoverable: false,
      details: { limit: MAX_OUTPUT_BYTES },
    });
    expect(final.attempts).toBe(1);
    expect(final.output).toBeUndefined();
    const result = await system.client.request(`/skills/sized_output/result/${final.execution_id}`);
    expect(JSON.stringify(result.body).length).toBeLessThan(2000);
  });

  it('completes an output just under the bound, whole', async () => {
    // {"data":"…"} is 11 bytes of JSON around the string.
    const { final } = await system.client.run('sized_output', { bytes: MAX_OUTPUT_BYTES - 11 });
    expect(final.status).toBe('completed');
    expect((final.output as { data: string }).data).toHaveLength(MAX_OUTPUT_BYTES - 11);
  });
});
