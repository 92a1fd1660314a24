import type { Execution } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { CHUNK_STEP, McpProgress } from '../../apps/gateway/src/agents/mcp/mcp-progress';

/** An execution running at `progress` (only its status and progress are read). */
const at = (progress: number | undefined, status: Execution['status'] = 'running') =>
  ({ status, ...(progress === undefined ? {} : { progress }) }) as Execution;

describe('McpProgress', () => {
  it("tells the skill's progress as a percentage of 100, each change once", () => {
    const reports = new McpProgress();
    expect(reports.status(at(undefined, 'accepted'))).toBeUndefined();
    expect(reports.status(at(25))).toEqual({ progress: 25, total: 100, message: 'running, 25%' });
    expect(reports.status(at(25))).toBeUndefined();
    expect(reports.status(at(100, 'completed'))).toEqual({
      progress: 100,
      total: 100,
      message: 'completed, 100%',
    });
  });

  it('tells a text chunk as its text and any other as its JSON, each a step above the last report', () => {
    const reports = new McpProgress();
    expect(reports.chunk('3…\n')).toEqual({ progress: CHUNK_STEP, total: 100, message: '3…\n' });
    expect(reports.chunk({ liftoff: true })).toEqual({
      progress: 2 * CHUNK_STEP,
      total: 100,
      message: '{"liftoff":true}',
    });
    expect(reports.chunk(42).message).toBe('42');
    expect(reports.chunk(null).message).toBe('null');
    expect(reports.status(at(40))?.progress).toBe(40);
    expect(reports.chunk('more').progress).toBe(40 + CHUNK_STEP);
  });

  it('never tells a progress at or below one told: a retry starting over is not told, its chunks go on above', () => {
    const reports = new McpProgress();
    const told: number[] = [];
    const tell = (report: { progress: number } | undefined) => report && told.push(report.progress);
    tell(reports.status(at(60)));
    for (let n = 0; n < 5; n++) tell(reports.chunk(`line ${n}`));
    tell(reports.status(at(10)));
    tell(reports.chunk('after the retry'));
    tell(reports.status(at(60)));
    tell(reports.status(at(61)));
    tell(reports.chunk('at 100'));
    tell(reports.status(at(100)));
    tell(reports.chunk('past 100'));
    expect(told).toHaveLength(11);
    for (const [index, progress] of told.entries()) {
      if (index > 0) expect(progress).toBeGreaterThan(told[index - 1] ?? Number.NaN);
    }
    expect(told.at(-1)).toBe(100 + CHUNK_STEP);
  });

  it('keeps a million chunks within one percent', () => {
    const reports = new McpProgress();
    reports.status(at(10));
    let last = 10;
    for (let n = 0; n < 1_000_000; n++) {
      const { progress } = reports.chunk('x');
      if (!(progress > last)) throw new Error(`chunk ${n} did not increase`);
      last = progress;
    }
    expect(last).toBeCloseTo(11, 6);
    expect(reports.status(at(12))?.progress).toBe(12);
  });
});
