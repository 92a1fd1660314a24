import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

interface ReplayFlags {
  fromStep?: string;
  version?: string;
}

export function registerReplayCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('replay')
      .summary('run an execution again as a new one (a composite from a step)')
      .description(
        "Run an execution again with its inputs, as a new execution linked to it; prints the new execution's id. A composite that failed at a step reruns from that step, reusing the recorded outputs of the steps before it; --from-step picks the step (its first: the whole pipeline).",
      )
      .argument('<skill>', 'the skill id')
      .argument('<execution>', 'the execution id')
      .option('--from-step <step>', "a composite's step to rerun from (default: the step it failed at)")
      .option('--version <range>', "the version range to run (default: the original's)"),
  ).action(async (skillId: string, executionId: string, flags: ReplayFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const handle = await context.client(settings).replay(
      { skillId, executionId },
      {
        ...(flags.fromStep === undefined ? {} : { from_step: flags.fromStep }),
        ...(flags.version === undefined ? {} : { version: flags.version }),
      },
    );
    if (settings.json) {
      context.terminal.json(handle.accepted);
      return;
    }
    const forked = handle.accepted.forked_from as { step: string } | undefined;
    context.terminal.out(handle.executionId);
    if (forked) context.terminal.err(`rerun from step ${forked.step} of ${executionId}`);
  });
}
