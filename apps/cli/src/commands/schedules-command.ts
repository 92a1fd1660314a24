import type { NewSchedule, Schedule, ScheduleRun } from '@skillrun/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context';
import { UsageError } from '../cli-error';
import { styledStatus } from '../format/status-style';
import { parseInputs } from '../input-parser';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { collect, positiveInteger, priority } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ListFlags {
  skill?: string;
  of?: string;
  limit?: number;
  cursor?: string;
}

interface CreateFlags {
  input?: string[];
  cron?: string;
  every?: number;
  timezone?: string;
  version?: string;
  overlap?: 'allow' | 'skip';
  paused?: boolean;
  priority?: 'low' | 'normal' | 'high';
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--every 30s`: milliseconds, or a number with a unit (ms, s, m, h, d). */
export function interval(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('must be a duration: 1500, 30s, 5m, 1h or 1d');
  return Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
}

function overlap(value: string): 'allow' | 'skip' {
  if (value === 'allow' || value === 'skip') return value;
  throw new InvalidArgumentError('must be allow or skip');
}

/** `skillrun schedules`: list, create, show, pause, resume and delete schedules. */
export function registerSchedulesCommand(program: Command, context: CliContext): void {
  const schedules = program
    .command('schedules')
    .alias('schedule')
    .summary('run skills on a cron pattern or every N: list, create, show, pause, resume, delete')
    .description(
      'Schedules: a skill invoked at every due time of a cron pattern (5 fields, or 6 with seconds first) or an interval, as the caller who made it. Each run is an execution naming the schedule (skillrun executions --schedule <id>).',
    );

  withServiceOptions(
    schedules
      .command('list', { isDefault: true })
      .summary("list your schedules (an admin's: everyone's)")
      .option('--skill <id>', 'only this skill')
      .option('--of <caller>', "admin: this caller's schedules")
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (flags: ListFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const page = await context.client(settings).listSchedules({
      ...(flags.skill === undefined ? {} : { skill_id: flags.skill }),
      ...(flags.of === undefined ? {} : { caller_id: flags.of }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    });
    if (settings.json) {
      terminal.json(page);
      return;
    }
    if (page.schedules.length === 0) {
      terminal.err('No schedules.');
      return;
    }
    const lines = renderTable(
      [
        { header: 'SCHEDULE', value: (schedule) => schedule.schedule_id },
        { header: 'SKILL', value: (schedule) => schedule.skill_id },
        { header: 'WHEN', value: whenOf, shrink: true },
        { header: 'NEXT', value: (schedule) => (schedule.paused ? 'paused' : (schedule.next_runs[0] ?? '')) },
      ],
      page.schedules,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    for (const line of lines) terminal.out(line);
    if (page.next_cursor) terminal.err(`More: add --cursor ${page.next_cursor}`);
  });

  withServiceOptions(
    schedules
      .command('create')
      .summary('make a schedule (--cron or --every)')
      .description(
        'Make a schedule: the skill is invoked with these inputs at every due time, as you (your credentials are checked again at each run). Inputs as for skillrun invoke.',
      )
      .argument('<skill>', 'the skill id')
      .argument('[inputs...]', 'key=value inputs')
      .option('-i, --input <json|@file|-|key=value>', 'inputs (repeatable)', collect)
      .option('--cron <pattern>', "a cron pattern: '0 9 * * 1-5', or 6 fields with seconds first")
      .option('--every <duration>', 'an interval: 30s, 5m, 1h (at least 1s); the first run at once', interval)
      .option('--timezone <zone>', 'the IANA time zone the cron is read in (default UTC)')
      .option('--version <range>', 'run the highest version in this semver range at each run')
      .option('--overlap <allow|skip>', 'skip: a due time is skipped while the previous run goes on', overlap)
      .option('--paused', 'make it paused (skillrun schedules resume <id> starts it)')
      .option('--priority <priority>', 'low, normal or high', priority),
  ).action(async (skill: string, pairs: string[], flags: CreateFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    if ((flags.cron === undefined) === (flags.every === undefined)) {
      throw new UsageError(
        'give exactly one of --cron and --every',
        "e.g. --every 5m, or --cron '0 9 * * *'",
      );
    }
    const request: NewSchedule = {
      skill_id: skill,
      inputs: await parseInputs([...(flags.input ?? []), ...pairs], context.sources),
      ...(flags.cron === undefined ? {} : { cron: flags.cron }),
      ...(flags.every === undefined ? {} : { every_ms: flags.every }),
      ...(flags.timezone === undefined ? {} : { timezone: flags.timezone }),
      ...(flags.version === undefined ? {} : { version: flags.version }),
      ...(flags.overlap === undefined ? {} : { overlap: flags.overlap }),
      ...(flags.paused ? { paused: true } : {}),
      ...(flags.priority === undefined ? {} : { context: { priority: flags.priority } }),
    };
    const schedule = await context.client(settings).createSchedule(request);
    if (settings.json) {
      terminal.json(schedule);
      return;
    }
    terminal.out(schedule.schedule_id);
    if (terminal.errInteractive) {
      terminal.err(terminal.errStyle('dim', `${whenOf(schedule)}; next: ${nextOf(schedule)}`));
    }
  });

  withServiceOptions(
    schedules
      .command('show')
      .summary('a schedule, its next due times and its latest runs')
      .argument('<schedule>', 'the schedule id'),
  ).action(async (id: string, _flags: unknown, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const schedule = await context.client(settings).getSchedule(id);
    if (settings.json) {
      terminal.json(schedule);
      return;
    }
    const fields: Array<[string, string]> = [
      ['schedule', schedule.schedule_id],
      ['skill', [schedule.skill_id, schedule.version].filter(Boolean).join(' ')],
      ['when', whenOf(schedule)],
      ['overlap', schedule.overlap],
      ['caller', schedule.caller.id],
      ['inputs', JSON.stringify(schedule.inputs)],
      ['next', nextOf(schedule)],
    ];
    for (const [name, value] of fields) terminal.out(`${terminal.style('bold', name.padEnd(9))}${value}`);
    const runs = schedule.last_runs ?? [];
    if (runs.length === 0) return;
    terminal.out('');
    const lines = renderTable(
      [
        { header: 'DUE', value: (run: ScheduleRun) => run.due_at },
        { header: 'OUTCOME', value: (run) => run.outcome },
        { header: 'EXECUTION', value: (run) => run.execution_id ?? '' },
        { header: 'STATUS', value: (run) => run.status ?? run.error?.code ?? '' },
      ],
      runs,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    const [header = '', ...rows] = lines;
    terminal.out(header);
    rows.forEach((line, index) => {
      const status = runs[index]?.status;
      terminal.out(status ? line.replace(` ${status}`, ` ${styledStatus(terminal, status)}`) : line);
    });
  });

  const change = (name: string, summary: string, paused: boolean) =>
    withServiceOptions(
      schedules.command(name).summary(summary).argument('<schedule>', 'the schedule id'),
    ).action(async (id: string, _flags: unknown, command: Command) => {
      const settings = settingsOf(command, context);
      const schedule = await context.client(settings).updateSchedule(id, { paused });
      if (settings.json) context.terminal.json(schedule);
      else
        context.terminal.out(
          `${schedule.schedule_id} ${paused ? 'paused' : `resumed; next: ${nextOf(schedule)}`}`,
        );
    });
  change('pause', 'pause a schedule: nothing runs until it is resumed', true);
  change('resume', 'resume a paused schedule', false);

  withServiceOptions(
    schedules
      .command('backfill')
      .summary("run a past window's due times now, each once")
      .argument('<schedule>', 'the schedule id')
      .requiredOption('--from <time>', "the window's start, RFC 3339 (included)")
      .option('--to <time>', 'its end, RFC 3339 (excluded; default now)'),
  ).action(async (id: string, flags: { from: string; to?: string }, command: Command) => {
    const settings = settingsOf(command, context);
    const to = flags.to ?? new Date().toISOString();
    const answer = await context.client(settings).backfillSchedule(id, { from: flags.from, to });
    if (settings.json) {
      context.terminal.json(answer);
      return;
    }
    for (const due of answer.queued) context.terminal.out(`${due} queued`);
    for (const due of answer.already_run) context.terminal.out(`${due} had run`);
    if (answer.queued.length + answer.already_run.length === 0)
      context.terminal.err('No due time in the window.');
  });

  withServiceOptions(
    schedules
      .command('delete')
      .summary('delete a schedule (its executions stay)')
      .argument('<schedule>', 'the schedule id'),
  ).action(async (id: string, _flags: unknown, command: Command) => {
    const settings = settingsOf(command, context);
    await context.client(settings).deleteSchedule(id);
    if (settings.json) context.terminal.json({ schedule_id: id, deleted: true });
    else context.terminal.out(`${id} deleted`);
  });

  for (const command of schedules.commands) command.exitOverride().configureOutput(program.configureOutput());
}

/** A schedule's timing, as a person reads it. */
function whenOf(schedule: Schedule): string {
  if (schedule.cron !== undefined) return `cron ${schedule.cron} (${schedule.timezone ?? 'UTC'})`;
  return `every ${durationOf(schedule.every_ms ?? 0)}`;
}

function durationOf(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function nextOf(schedule: Schedule): string {
  return schedule.paused ? 'paused' : (schedule.next_runs[0] ?? 'none');
}
