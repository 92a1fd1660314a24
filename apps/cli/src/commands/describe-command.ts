import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { descriptorView } from '../format/descriptor-view';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

export function registerDescribeCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('describe')
      .summary("show a skill's descriptor")
      .description(
        "Show a skill's descriptor: what it does, its inputs (name, type, required, default, rules), its output, endpoint and auth.",
      )
      .argument('<skill>', 'a skill id, or a descriptor URL')
      .option('--version <range>', 'the highest version in this semver range (default: the latest)'),
  ).action(async (skill: string, flags: { version?: string }, command: Command) => {
    const settings = settingsOf(command, context);
    const descriptor = await context
      .client(settings)
      .describe(skill, flags.version === undefined ? {} : { version: flags.version });
    if (settings.json) {
      context.terminal.json(descriptor);
      return;
    }
    for (const line of descriptorView(context.terminal, descriptor)) context.terminal.out(line);
  });
}
