import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

const SUMMARIES = {
  pause: 'pause a skill: its executions are accepted and wait, none starts (admin)',
  resume: 'resume a paused skill: its waiting executions start (admin)',
};

/** `skillrun pause SKILL` and `skillrun resume SKILL`: an operator's hold on a skill. */
export function registerPauseCommands(program: Command, context: CliContext): void {
  for (const action of ['pause', 'resume'] as const) {
    withServiceOptions(
      program
        .command(action)
        .summary(SUMMARIES[action])
        .description(
          `${SUMMARIES[action].replace(/^\w/, (first) => first.toUpperCase())}. Needs an admin key, or the skill id's namespace. Running it again changes nothing.`,
        )
        .argument('<skill>', 'the skill id'),
    ).action(async (skillId: string, _flags: unknown, command: Command) => {
      const settings = settingsOf(command, context);
      const client = context.client(settings);
      const state = action === 'pause' ? await client.pauseSkill(skillId) : await client.resumeSkill(skillId);
      if (settings.json) context.terminal.json(state);
      else if (state.paused)
        context.terminal.out(`${skillId} paused since ${state.paused_at} by ${state.paused_by}`);
      else context.terminal.out(`${skillId} runs (not paused)`);
    });
  }
}
