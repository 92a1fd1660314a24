import { InvalidArgumentError } from 'commander';

/** `--limit 20`: a whole number from 1 to `max`. */
export function positiveInteger(max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1 || number > max) {
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    }
    return number;
  };
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since 2h` (that long ago: s, m, h, d, w) or an RFC 3339 time, as RFC 3339. */
export function pointInTime(value: string, now: () => number = Date.now): string {
  const relative = /^(\d+)([smhdw])$/.exec(value.trim());
  if (relative) {
    const [, amount, unit] = relative;
    return new Date(now() - Number(amount) * (UNIT_MS[unit as string] ?? 0)).toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) {
    return new Date(Date.parse(value)).toISOString();
  }
  throw new InvalidArgumentError('must be a time (2026-11-25T10:00:00Z, 2026-11-25) or an age (30m, 2h, 7d)');
}

/** Repeated flags: `--input a --input b`. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function priority(value: string): 'low' | 'normal' | 'high' {
  if (value === 'low' || value === 'normal' || value === 'high') return value;
  throw new InvalidArgumentError('must be low, normal or high');
}
