import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { executionView } from '../format/execution-view';
import { printFinalState } from '../format/final-state';
import { styledStatus } from '../format/status-style';
import { watchExecution } from '../watch/watch-execution';
import { settingsOf } from './command-settings';
import { positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ReadFlags {
  wait?: boolean;
  timeout?: number;
}

/** A command that reads one execution: its skill and id, and --wait / --timeout to follow it. */
function readCommand(program: Command, name: string, summary: string, description: string, wait: string) {
  return withServiceOptions(
    program
      .command(name)
      .summary(summary)
      .description(description)
      .argument('<skill>', 'the skill id')
      .argument('<execution>', 'the execution id')
      .option('-w, --wait', wait)
      .option('--timeout <ms>', 'with --wait: give up watching after this long', positiveInteger(86_400_000)),
  );
}

/** `status` and `result`: one execution, read once or followed to its end with --wait. */
export function registerStatusCommands(program: Command, context: CliContext): void {
  readCommand(
    program,
    'status',
    "show an execution's status",
    "Show an execution's status, progress, attempts, times, and its output or error once it has ended.",
    'follow it live to its end (exit code as for invoke --wait)',
  ).action(async (skillId: string, executionId: string, flags: ReadFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const client = context.client(settings);
    const ref = { skillId, executionId };
    if (flags.wait) {
      const final = await watchExecution(terminal, client, ref, {
        json: settings.json,
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
      });
      if (settings.json) terminal.json(final);
      else for (const line of executionView(terminal, final)) terminal.out(line);
      context.exitCode = final.status === 'completed' ? ExitCode.Ok : ExitCode.Failed;
      return;
    }
    const execution = await client.status(ref);
    if (settings.json) terminal.json(execution);
    else for (const line of executionView(terminal, execution)) terminal.out(line);
  });

  readCommand(
    program,
    'result',
    "print an execution's output",
    "Print a completed execution's output (exit 0). One that failed, timed out or was canceled: its error on stderr (exit 1). One still running: its status on stderr (exit 1), or --wait.",
    'wait for it to end, showing its status live',
  ).action(async (skillId: string, executionId: string, flags: ReadFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const client = context.client(settings);
    const ref = { skillId, executionId };
    const execution = flags.wait
      ? await watchExecution(terminal, client, ref, {
          json: settings.json,
          ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        })
      : await client.result(ref);
    if (execution.status === 'accepted' || execution.status === 'running') {
      if (settings.json) terminal.json(execution);
      terminal.err(
        `${styledStatus(terminal, execution.status, 'err')}: it has not ended yet; wait for it with \`skillrun result ${skillId} ${executionId} --wait\``,
      );
      context.exitCode = ExitCode.Failed;
      return;
    }
    context.exitCode = printFinalState(terminal, execution, settings.json);
  });
}
