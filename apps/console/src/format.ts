import { isTerminal } from '@skillrun/client';
import type { Execution } from './protocol';

/** 850 ms, 1.2 s, 3 min 4 s, 2 h 5 min. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  const value = Math.max(0, ms);
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  if (value < 3_600_000) return `${Math.floor(value / 60_000)} min ${Math.floor((value % 60_000) / 1000)} s`;
  return `${Math.floor(value / 3_600_000)} h ${Math.floor((value % 3_600_000) / 60_000)} min`;
}

const ms = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/**
 * From acceptance to the first start (or until now while it waits); a delayed execution's from when
 * it was due (none before then).
 */
export function queueWait(execution: Execution, now = Date.now()): number | undefined {
  const due = ms(execution.timestamps.scheduled_for ?? execution.timestamps.created_at);
  const started = ms(execution.timestamps.started_at);
  if (due === undefined) return undefined;
  if (started !== undefined) return started - due;
  return execution.status === 'accepted' && now >= due ? now - due : undefined;
}

/** From the start to the end (or until now while it runs). */
export function runTime(execution: Execution, now = Date.now()): number | undefined {
  const started = ms(execution.timestamps.started_at);
  if (started === undefined) return undefined;
  const ended = ms(execution.timestamps.completed_at);
  return (ended ?? (isTerminal(execution.status) ? undefined : now) ?? started) - started;
}

export function time(iso: string | undefined): string {
  if (iso === undefined) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `5d0c3d9e…`: enough of an id to tell it apart in a list. */
export function shortId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}

const dollars = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumSignificantDigits: 4,
});

/** `$0.004`, `$12.5`: a cost in US dollars, or `–` when nothing it ran has a price. */
export function usd(amount: number | undefined): string {
  return amount === undefined ? '–' : dollars.format(amount);
}
