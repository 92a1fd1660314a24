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

/** `--delay 5000` (ms) or `--delay 90s` (ms, s, m, h, d, w): a length of time, in ms. */
export function duration(value: string): number {
  const match = /^(\d+)(ms|[smhdw])?$/.exec(value.trim());
  if (!match) {
    throw new InvalidArgumentError(
      'must be a whole number of ms, or one with a unit (500ms, 90s, 5m, 2h, 1d)',
    );
  }
  const [, amount, unit = 'ms'] = match;
  return Number(amount) * (unit === 'ms' ? 1 : (UNIT_MS[unit] ?? 0));
}

/** Repeated flags: `--input a --input b`. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--debounce KEY:MS` or `KEY:MS:leading` (or `:trailing`, the default): context.debounce. */
export function debounce(value: string): { key: string; delay_ms: number; mode?: 'trailing' | 'leading' } {
  const match = /^(.+):(\d+)(?::(trailing|leading))?$/.exec(value);
  const delay = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(delay) || delay < 1) {
    throw new InvalidArgumentError('must be KEY:MS, or KEY:MS:leading (e.g. edits:2000)');
  }
  return {
    key: match[1],
    delay_ms: delay,
    ...(match[3] ? { mode: match[3] as 'trailing' | 'leading' } : {}),
  };
}

/** `--metadata '{"k":"v"}'`: a JSON object (the service bounds its size). */
export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object ({"order":"A-7"})');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object ({"order":"A-7"})');
  }
  return parsed as Record<string, unknown>;
}

export function priority(value: string): 'low' | 'normal' | 'high' {
  if (value === 'low' || value === 'normal' || value === 'high') return value;
  throw new InvalidArgumentError('must be low, normal or high');
}
