import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { elapsed, styledStatus } from '../format/status-style';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { pointInTime, positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ExecutionsFlags {
  skill?: string;
  status?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
  of?: string;
}

export function registerExecutionsCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('executions')
      .alias('history')
      .summary('list your executions, newest first')
      .description(
        "List the executions of the caller your credentials name (an admin: everyone's), newest first.",
      )
      .option('--skill <id>', 'only this skill')
      .option(
        '--status <status,...>',
        'only these statuses: accepted, running, completed, failed, timeout, canceled',
      )
      .option(
        '--since <time>',
        'created at or after: RFC 3339 (2026-11-25T10:00:00Z) or an age (30m, 2h, 7d)',
        (value) => pointInTime(value),
      )
      .option('--until <time>', 'created before: as --since', (value) => pointInTime(value))
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor")
      .option('--of <caller>', "admin: this caller's executions"),
  ).action(async (flags: ExecutionsFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const page = await context.client(settings).executions({
      ...(flags.skill === undefined ? {} : { skill_id: flags.skill }),
      ...(flags.status === undefined ? {} : { status: flags.status }),
      ...(flags.since === undefined ? {} : { since: flags.since }),
      ...(flags.until === undefined ? {} : { until: flags.until }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
      ...(flags.of === undefined ? {} : { caller_id: flags.of }),
    });
    if (settings.json) {
      terminal.json(page);
      return;
    }
    if (page.executions.length === 0) {
      terminal.err('No executions.');
      return;
    }
    const lines = renderTable(
      [
        { header: 'EXECUTION', value: (execution) => execution.execution_id },
        {
          header: 'SKILL',
          value: (execution) => [execution.skill_id, execution.skill_version].filter(Boolean).join(' '),
        },
        { header: 'STATUS', value: (execution) => execution.status },
        { header: 'CREATED', value: (execution) => execution.timestamps?.created_at ?? '' },
        {
          header: 'TOOK',
          value: (execution) =>
            execution.timestamps?.completed_at
              ? elapsed(execution.timestamps.created_at, execution.timestamps.completed_at)
              : '',
        },
      ],
      page.executions,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    // Colour after layout, so escape codes do not count as width.
    const [header = '', ...rows] = lines;
    terminal.out(header);
    rows.forEach((line, index) => {
      const status = page.executions[index]?.status ?? '';
      terminal.out(status ? line.replace(` ${status}`, ` ${styledStatus(terminal, status)}`) : line);
    });
    if (page.next_cursor) terminal.err(`More: add --cursor ${page.next_cursor}`);
  });
}
