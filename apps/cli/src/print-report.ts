import type { ErrorReport } from './error-report';
import type { Terminal } from './terminal';

/** An error on stderr: `error: CODE: message`, the fields at fault, then what to do; JSON with --json. */
export function printReport(terminal: Terminal, report: ErrorReport, json: boolean): void {
  if (json) {
    const { exitCode, code, message, details, hints } = report;
    terminal.err(JSON.stringify({ error: { code, message, details, hints, exit_code: exitCode } }));
    return;
  }
  const label = terminal.errStyle(['bold', 'red'], 'error:');
  const code = report.code === 'USAGE' || report.code === 'ERROR' ? '' : `${report.code}: `;
  terminal.err(`${label} ${code}${report.message}`);
  for (const detail of report.details) terminal.err(`  ${detail}`);
  for (const hint of report.hints) terminal.err(`${terminal.errStyle('yellow', 'hint:')} ${hint}`);
}

/** Something the user should know although the command goes on: `warning: …`; JSON with --json. */
export function printWarning(terminal: Terminal, message: string, json: boolean): void {
  if (json) terminal.err(JSON.stringify({ warning: { message } }));
  else terminal.err(`${terminal.errStyle(['bold', 'yellow'], 'warning:')} ${message}`);
}
