import { type Spread, spread } from './stats.mjs';

/** What a row must reach: a ratio to its baseline, or an absolute bound. */
export type Target =
  | { kind: 'ratio-at-least'; value: number }
  | { kind: 'ratio-at-most'; value: number }
  | { kind: 'at-most'; value: number };

/** One line of the table: a figure of the service and of its baseline, over the repetitions. */
export interface Figure {
  row: string;
  title: string;
  unit: string;
  ours: number[];
  baseline?: number[];
  baselineName?: string;
  target?: Target;
}

export type Verdict = 'met' | 'missed' | 'n/a';

export function ratio(figure: Figure): number {
  if (!figure.baseline) return Number.NaN;
  return spread(figure.ours).median / spread(figure.baseline).median;
}

export function verdict(figure: Figure): Verdict {
  const { target } = figure;
  if (!target) return 'n/a';
  const ours = spread(figure.ours).median;
  const value = target.kind === 'at-most' ? ours : ratio(figure);
  if (!Number.isFinite(value)) return 'missed';
  return (target.kind === 'ratio-at-least' ? value >= target.value : value <= target.value)
    ? 'met'
    : 'missed';
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  const digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatSpread(values: Spread): string {
  if (values.values.length <= 1) return 'single run';
  return `${formatNumber(values.min)}–${formatNumber(values.max)}`;
}

function formatTarget(target: Target | undefined, unit: string): string {
  if (!target) return '—';
  if (target.kind === 'ratio-at-least') return `≥ ${target.value}×`;
  if (target.kind === 'ratio-at-most') return `≤ ${target.value}×`;
  return `≤ ${formatNumber(target.value)} ${unit}`;
}

/** The results as a Markdown table (pasted into docs/performance.md as it is). */
export function markdownTable(figures: Figure[]): string {
  const header = [
    '#',
    'figure',
    'unit',
    'ours (median)',
    'ours spread',
    'baseline (median)',
    'baseline spread',
    'ours ÷ baseline',
    'target',
    'met?',
  ];
  const lines = [header, header.map(() => '---')];
  for (const figure of figures) {
    const ours = spread(figure.ours);
    const baseline = figure.baseline ? spread(figure.baseline) : undefined;
    const outcome = verdict(figure);
    lines.push([
      figure.row,
      figure.title,
      figure.unit,
      formatNumber(ours.median),
      formatSpread(ours),
      baseline
        ? `${formatNumber(baseline.median)}${figure.baselineName ? ` (${figure.baselineName})` : ''}`
        : '—',
      baseline ? formatSpread(baseline) : '—',
      baseline ? `${formatNumber(ratio(figure))}×` : '—',
      formatTarget(figure.target, figure.unit),
      outcome === 'met' ? '✅ met' : outcome === 'missed' ? '❌ missed' : '—',
    ]);
  }
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
