import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { printFinalState } from '../format/final-state';
import { parseInputs } from '../input-parser';
import { watchExecution } from '../watch/watch-execution';
import { settingsOf } from './command-settings';
import { collect, positiveInteger, priority } from './option-parsers';
import { withServiceOptions } from './service-options';

interface InvokeFlags {
  input?: string[];
  version?: string;
  wait?: boolean;
  timeout?: number;
  priority?: 'low' | 'normal' | 'high';
  idempotencyKey?: string;
  traceId?: string;
}

export function registerInvokeCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('invoke')
      .alias('run')
      .summary('invoke a skill (--wait to follow it to the end)')
      .description(
        [
          'Invoke a skill. Without --wait, prints the execution id (the 202 answer with --json). With --wait, shows its status live (a progress bar on a terminal) and prints its output.',
          'Inputs, merged in order: --input \'{"text":"hi"}\', --input @inputs.json, --input - (stdin), and key=value pairs (as --input or after the skill id; the value is JSON when it parses as JSON, else text; a.b=1 sets a nested field).',
        ].join('\n\n'),
      )
      .argument('<skill>', 'a skill id, or a descriptor URL')
      .argument('[inputs...]', 'key=value inputs')
      .option('-i, --input <json|@file|-|key=value>', 'inputs (repeatable)', collect)
      .option('--version <range>', 'run the highest version in this semver range')
      .option('-w, --wait', 'follow the execution to its end and print its output')
      .option('--timeout <ms>', 'with --wait: give up watching after this long', positiveInteger(86_400_000))
      .option('--priority <priority>', 'low, normal or high', priority)
      .option('--idempotency-key <key>', 'a repeat with the same key answers the first execution')
      .option('--trace-id <id>', 'the trace id to run under'),
  ).action(async (skill: string, pairs: string[], flags: InvokeFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const inputs = await parseInputs([...(flags.input ?? []), ...pairs], context.sources);
    const client = context.client(settings);
    const invocationContext = {
      ...(flags.priority === undefined ? {} : { priority: flags.priority }),
      ...(flags.traceId === undefined ? {} : { trace_id: flags.traceId }),
    };
    const handle = await client.invoke(skill, inputs, {
      ...(flags.version === undefined ? {} : { version: flags.version }),
      ...(flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey }),
      ...(Object.keys(invocationContext).length > 0 ? { context: invocationContext } : {}),
    });
    if (!flags.wait) {
      if (settings.json) terminal.json(handle.accepted);
      else terminal.out(handle.executionId);
      if (!settings.json && terminal.errInteractive) {
        terminal.err(
          terminal.errStyle(
            'dim',
            `Follow it: skillrun status ${handle.skillId} ${handle.executionId} --wait`,
          ),
        );
      }
      return;
    }
    const final = await watchExecution(terminal, client, handle, {
      json: settings.json,
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    });
    context.exitCode = printFinalState(terminal, final, settings.json);
  });
}
