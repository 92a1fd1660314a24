import type { Execution } from '@skillrun/client';
import { ExitCode } from '../exit-codes';
import type { Terminal } from '../terminal';
import { detailLines } from './detail-lines';
import { elapsed, styledStatus } from './status-style';

/**
 * An ended execution: its output on stdout and exit 0 when it completed; else its error on stderr
 * (code, message, the details at fault, such as the /output path, and what to do) and exit 1. With --json, the whole execution on stdout either way.
 */
export function printFinalState(terminal: Terminal, execution: Execution, json: boolean): number {
  const completed = execution.status === 'completed';
  const took = elapsed(execution.timestamps?.created_at, execution.timestamps?.completed_at);
  if (!json && terminal.errInteractive && completed) {
    terminal.err(`${styledStatus(terminal, execution.status, 'err')}${took ? ` in ${took}` : ''}`);
  }
  if (json) {
    terminal.json(execution);
  } else if (completed) {
    terminal.json(execution.output ?? null);
  }
  if (completed) return ExitCode.Ok;
  if (!json) {
    const error = execution.error;
    const label = terminal.errStyle(['bold', 'red'], `${execution.status}:`);
    terminal.err(
      error ? `${label} ${error.code}: ${error.message}` : `${label} the execution did not complete`,
    );
    for (const detail of detailLines(error?.details)) terminal.err(`  ${detail}`);
    if (error?.suggested_action)
      terminal.err(`${terminal.errStyle('yellow', 'hint:')} ${error.suggested_action}`);
  }
  return ExitCode.Failed;
}
