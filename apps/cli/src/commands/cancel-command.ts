import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { styledStatus } from '../format/status-style';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

export function registerCancelCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('cancel')
      .summary('cancel an execution')
      .description(
        'Cancel an execution that has not ended. Exit 1 (EXECUTION_ENDED) when it had already ended otherwise.',
      )
      .argument('<skill>', 'the skill id')
      .argument('<execution>', 'the execution id'),
  ).action(async (skillId: string, executionId: string, _flags: unknown, command: Command) => {
    const settings = settingsOf(command, context);
    const execution = await context.client(settings).cancel({ skillId, executionId });
    if (settings.json) context.terminal.json(execution);
    else
      context.terminal.out(`${styledStatus(context.terminal, execution.status)} ${execution.execution_id}`);
  });
}
