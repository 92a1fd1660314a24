import type { Terminal } from '../terminal';

/** An execution's status, coloured by how it went (on a terminal). */
export function styledStatus(terminal: Terminal, status: string, stream: 'out' | 'err' = 'out'): string {
  const style =
    status === 'completed'
      ? 'green'
      : status === 'failed' || status === 'timeout'
        ? 'red'
        : status === 'canceled'
          ? 'yellow'
          : 'cyan';
  return stream === 'out' ? terminal.style(style, status) : terminal.errStyle(style, status);
}

/** How long from one timestamp to another (or to now), as `850ms`, `12.4s`, `3m05s`, `2h10m`. */
export function elapsed(from: string | undefined, to?: string, now: () => number = Date.now): string {
  if (from === undefined) return '';
  const start = Date.parse(from);
  const end = to === undefined ? now() : Date.parse(to);
  if (Number.isNaN(start) || Number.isNaN(end)) return '';
  return formatDuration(Math.max(0, end - start));
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
