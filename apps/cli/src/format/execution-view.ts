import type { Execution } from '@skillrun/client';
import type { Terminal } from '../terminal';
import { detailLines } from './detail-lines';
import { elapsed, styledStatus } from './status-style';

const FIELD_WIDTH = 10;

/** An execution as `field  value` lines: what `skillrun status` prints. */
export function executionView(terminal: Terminal, execution: Execution): string[] {
  const { timestamps = {} } = execution;
  const rows: [string, string | undefined][] = [
    ['execution', execution.execution_id],
    ['skill', [execution.skill_id, execution.skill_version].filter(Boolean).join(' ')],
    ['status', styledStatus(terminal, execution.status)],
    // A skill at its concurrency limit: why an accepted execution has not started.
    ['waiting', typeof execution.waiting_for === 'string' ? `for ${execution.waiting_for}` : undefined],
    ['progress', execution.progress === undefined ? undefined : `${execution.progress}%`],
    [
      'attempts',
      execution.attempts === undefined ? undefined : `${execution.attempts}/${execution.max_attempts ?? '?'}`,
    ],
    ['created', timestamps.created_at],
    ['started', timestamps.started_at],
    ['ended', timestamps.completed_at],
    ['took', timestamps.completed_at ? elapsed(timestamps.created_at, timestamps.completed_at) : undefined],
    ['trace', execution.trace_id],
    [
      'error',
      execution.error
        ? [
            `${execution.error.code}: ${execution.error.message}`,
            ...detailLines(execution.error.details),
          ].join(`\n${' '.repeat(FIELD_WIDTH + 2)}`)
        : undefined,
    ],
    ['suggestion', execution.error?.suggested_action],
  ];
  const lines = rows
    .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
    .map(([field, value]) => `${terminal.style('bold', field.padEnd(FIELD_WIDTH))}  ${value}`);
  if (execution.output !== undefined) {
    lines.push(terminal.style('bold', 'output'), JSON.stringify(execution.output, null, 2));
  }
  return lines;
}
