import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { elapsed, styledStatus } from '../format/status-style';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { type HistoryFilterFlags, historyFilterOf, withHistoryFilter } from './history-filter';
import { positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ExecutionsFlags extends HistoryFilterFlags {
  limit?: number;
  cursor?: string;
}

export function registerExecutionsCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    withHistoryFilter(
      program
        .command('executions')
        .alias('history')
        .summary('list your executions, newest first')
        .description(
          "List the executions of the caller your credentials name (an admin: everyone's), newest first.",
        ),
    )
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (flags: ExecutionsFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const page = await context.client(settings).executions({
      ...historyFilterOf(flags),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
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
