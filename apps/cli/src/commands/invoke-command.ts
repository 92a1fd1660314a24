import { type Command, Option } from 'commander';
import { invokeBatch } from '../batch/invoke-batch';
import type { CliContext } from '../cli-context';
import { UsageError } from '../cli-error';
import { printFinalState } from '../format/final-state';
import { parseInputs } from '../input-parser';
import { watchExecution } from '../watch/watch-execution';
import { settingsOf } from './command-settings';
import { collect, debounce, duration, jsonObject, positiveInteger, priority } from './option-parsers';
import { withServiceOptions } from './service-options';

interface InvokeFlags {
  batch?: string;
  input?: string[];
  version?: string;
  wait?: boolean;
  timeout?: number;
  priority?: 'low' | 'normal' | 'high';
  idempotencyKey?: string;
  traceId?: string;
  concurrencyKey?: string;
  debounce?: ReturnType<typeof debounce>;
  debounceMax?: number;
  delay?: number;
  runAt?: string;
  tag?: string[];
  metadata?: Record<string, unknown>;
  budget?: Record<string, unknown>;
}

export function registerInvokeCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('invoke')
      .alias('run')
      .summary('invoke a skill (--wait to follow it to the end)')
      .description(
        [
          'Invoke a skill. Without --wait, prints the execution id (the 202 answer with --json). With --wait, shows its status live (a progress bar on a terminal), prints what the skill streams as it comes (text as text, other chunks as JSON lines; not with --json) and then its output.',
          'Inputs, merged in order: --input \'{"text":"hi"}\', --input @inputs.json, --input - (stdin), and key=value pairs (as --input or after the skill id; the value is JSON when it parses as JSON, else text; a.b=1 sets a nested field).',
          'Many at once: --batch items.jsonl (- for stdin), one item per line as POST /batches takes it ({"skill_id":"text_stats","inputs":{"text":"hi"}}, with "version", "context" and "idempotency_key" if need be; the skill named on the command line is that of the lines that name none). Prints the batch id, then each item\'s execution id or error, in order (exit 1 if any was refused); with --wait, follows the batch to its end and prints each execution\'s status (exit 0 when all completed).',
        ].join('\n\n'),
      )
      .argument('[skill]', 'a skill id, or a descriptor URL')
      .argument('[inputs...]', 'key=value inputs')
      .option('--batch <file.jsonl|->', 'invoke many: one item per line (JSON Lines)')
      .option('-i, --input <json|@file|-|key=value>', 'inputs (repeatable)', collect)
      .option('--version <range>', 'run the highest version in this semver range')
      .option('-w, --wait', 'follow the execution to its end, print what it streams, then its output')
      .option('--timeout <ms>', 'with --wait: give up watching after this long', positiveInteger(86_400_000))
      .option('--priority <priority>', 'low, normal or high', priority)
      .option('--idempotency-key <key>', 'a repeat with the same key answers the first execution')
      .option('--trace-id <id>', 'the trace id to run under')
      .option('--concurrency-key <key>', "what the skill's concurrency per_key counts this execution under")
      .option(
        '--debounce <key:ms[:leading]>',
        'collapse calls with this key within ms into one execution (trailing: the last inputs run; leading: the first)',
        debounce,
      )
      .addOption(
        new Option(
          '--debounce-max <ms|duration>',
          'with --debounce: the calls hold it back (or open) at most this long',
        ).argParser(duration),
      )
      .addOption(
        new Option('--delay <ms|duration>', 'start it this long after it is accepted (5000, 90s, 5m, 2h, 1d)')
          .argParser(duration)
          .conflicts('runAt'),
      )
      .option('--run-at <time>', 'start it at this RFC 3339 time (2026-11-25T10:00:00Z)')
      .option('--tag <tag>', 'a tag to list it by (repeatable, up to 10: executions --tag)', collect)
      .option('--metadata <json>', 'a JSON object kept with it (at most 4 KB)', jsonObject)
      .option(
        '--budget <json>',
        'what it and its steps may spend: {"max_tokens","max_cost_usd","max_steps","max_duration_ms"}',
        jsonObject,
      ),
  ).action(async (skill: string | undefined, pairs: string[], flags: InvokeFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    if (flags.batch !== undefined) {
      const perLine = [
        flags.input,
        flags.version,
        flags.priority,
        flags.traceId,
        flags.delay,
        flags.runAt,
        flags.tag,
        flags.metadata,
        flags.budget,
      ];
      if (pairs.length > 0 || perLine.some((flag) => flag !== undefined)) {
        throw new UsageError("--batch takes each item's inputs, version and context from its line");
      }
      await invokeBatch(context, settings, {
        file: flags.batch,
        skill,
        wait: flags.wait === true,
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        ...(flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey }),
      });
      return;
    }
    if (skill === undefined) throw new UsageError('missing the skill to invoke (or --batch items.jsonl)');
    if (flags.debounceMax !== undefined && flags.debounce === undefined) {
      throw new UsageError('--debounce-max bounds a --debounce key: give one');
    }
    const inputs = await parseInputs([...(flags.input ?? []), ...pairs], context.sources);
    const client = context.client(settings);
    const invocationContext = {
      ...(flags.priority === undefined ? {} : { priority: flags.priority }),
      ...(flags.traceId === undefined ? {} : { trace_id: flags.traceId }),
      ...(flags.concurrencyKey === undefined ? {} : { concurrency_key: flags.concurrencyKey }),
      ...(flags.debounce === undefined ? {} : { debounce: debounceOf(flags.debounce, flags.debounceMax) }),
      ...(flags.delay === undefined ? {} : { delay_ms: flags.delay }),
      ...(flags.runAt === undefined ? {} : { run_at: flags.runAt }),
      ...(flags.tag === undefined ? {} : { tags: flags.tag }),
      ...(flags.metadata === undefined ? {} : { metadata: flags.metadata }),
      ...(flags.budget === undefined ? {} : { budget: flags.budget }),
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
        if (handle.debounced) {
          terminal.err(terminal.errStyle('dim', 'Debounced: the execution its key had open'));
        }
        const due = handle.accepted.timestamps?.scheduled_for;
        terminal.err(
          terminal.errStyle(
            'dim',
            `${due ? `Due to start at ${due}. ` : ''}Follow it: skillrun status ${handle.skillId} ${handle.executionId} --wait`,
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

/** context.debounce: the key as --debounce gives it, and --debounce-max's bound if any. */
function debounceOf(key: ReturnType<typeof debounce>, maxDelayMs: number | undefined) {
  return maxDelayMs === undefined ? key : { ...key, max_delay_ms: maxDelayMs };
}
