import type { Execution } from '@skillrun/core';

/**
 * The most executions whose [started_at, completed_at] intervals overlap at one instant: what ran
 * at once, read from the executions' own timestamps rather than from durations.
 */
export function mostAtOnce(executions: Execution[]): number {
  const edges = executions.flatMap((execution) => [
    { at: Date.parse(execution.timestamps.started_at ?? ''), step: 1 },
    { at: Date.parse(execution.timestamps.completed_at ?? ''), step: -1 },
  ]);
  // An end and a start at the same millisecond do not overlap: ends first.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let running = 0;
  let most = 0;
  for (const edge of edges) {
    running += edge.step;
    most = Math.max(most, running);
  }
  return most;
}
