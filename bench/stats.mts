/** Order statistics for the few repetitions of a figure, and percentiles of latency samples. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Linear interpolation between the closest ranks (what spreadsheets call PERCENTILE.INC). */
export function percentile(values: readonly number[], q: number): number {
  const ordered = sorted(values);
  if (ordered.length === 0) return Number.NaN;
  const rank = q * (ordered.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = ordered[low] ?? Number.NaN;
  const b = ordered[high] ?? a;
  return a + (b - a) * (rank - low);
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: readonly number[]): Spread {
  const ordered = sorted(values.filter((value) => Number.isFinite(value)));
  return {
    median: median(ordered),
    min: ordered[0] ?? Number.NaN,
    max: ordered.at(-1) ?? Number.NaN,
    values: [...values],
  };
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}
