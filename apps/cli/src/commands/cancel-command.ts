import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { UsageError } from '../cli-error';
import { styledStatus } from '../format/status-style';
import type { Settings } from '../settings';
import { settingsOf } from './command-settings';
import { type HistoryFilterFlags, historyFilterOf, withHistoryFilter } from './history-filter';
import { withServiceOptions } from './service-options';

interface CancelFlags extends HistoryFilterFlags {
  all?: boolean;
}

/** How many executions one request of `cancel --all` cancels (the service's most). */
const PAGE = 1000;

export function registerCancelCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    withHistoryFilter(
      program
        .command('cancel')
        .summary('cancel an execution, or every one a filter finds')
        .description(
          "Cancel an execution that has not ended: exit 1 (EXECUTION_ENDED) when it had already ended otherwise. With --all, cancel every execution the filter flags find that has not ended: yours (an admin: anyone's, or one caller's with --of).",
        )
        .argument('[skill]', 'the skill id')
        .argument('[execution]', 'the execution id')
        .option('--all', 'cancel every execution the filter flags find (skill and execution left out)'),
    ),
  ).action(
    async (
      skillId: string | undefined,
      executionId: string | undefined,
      flags: CancelFlags,
      command: Command,
    ) => {
      const settings = settingsOf(command, context);
      const filter = historyFilterOf(flags);
      if (flags.all) {
        if (skillId !== undefined) {
          throw new UsageError(
            'cancel --all takes no skill or execution',
            'filter with --skill, --status, --since …',
          );
        }
        await cancelAll(context, settings, filter);
        return;
      }
      if (skillId === undefined || executionId === undefined) {
        throw new UsageError('cancel needs a skill and an execution id', 'or --all with filter flags');
      }
      if (Object.keys(filter).length > 0) throw new UsageError('the filter flags go with --all');
      const execution = await context.client(settings).cancel({ skillId, executionId });
      if (settings.json) context.terminal.json(execution);
      else
        context.terminal.out(`${styledStatus(context.terminal, execution.status)} ${execution.execution_id}`);
    },
  );
}

/** Every page of POST /executions/cancel until the filter's scan reaches the oldest execution kept. */
async function cancelAll(
  context: CliContext,
  settings: Settings,
  filter: ReturnType<typeof historyFilterOf>,
): Promise<void> {
  const client = context.client(settings);
  let canceled = 0;
  let cursor: string | null = null;
  do {
    const page = await client.cancelExecutions({ ...filter, limit: PAGE, ...(cursor ? { cursor } : {}) });
    canceled += page.canceled;
    cursor = page.next_cursor;
  } while (cursor !== null);
  if (settings.json) context.terminal.json({ canceled });
  else context.terminal.out(`canceled ${canceled} execution${canceled === 1 ? '' : 's'}`);
}
