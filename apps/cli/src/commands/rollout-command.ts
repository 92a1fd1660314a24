import type { SkillRollout } from '@skillrun/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context';
import type { Terminal } from '../terminal';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

/** A percent as typed; whether it is 0–100 is the service's to say (it names the field). */
function percent(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed))
    throw new InvalidArgumentError('must be a number 0-100');
  return parsed;
}

/**
 * `skillrun skills rollout`: a skill's rollout, for admins: show it, ramp a version to a share of
 * the unpinned callers, roll it back, and pin or unpin a caller.
 */
export function registerRolloutCommand(skills: Command, program: Command, context: CliContext): void {
  const rollout = skills
    .command('rollout')
    .summary("a skill's rollout (admin): show, ramp, rollback, pin, unpin")
    .description(
      "A skill's rollout: a version ramped to a share of the callers that neither name a version nor are pinned (the same callers each time), and callers pinned to a version range. Needs an admin key.",
    );
  const run = (
    name: string,
    summary: string,
    args: string[],
    call: (command: Command, values: string[]) => Promise<SkillRollout>,
  ) => {
    let sub = rollout.command(name).summary(summary);
    for (const arg of args) sub = sub.argument(arg);
    withServiceOptions(sub).action(async (...received: unknown[]) => {
      const command = received.at(-1) as Command;
      const rolled = await call(command, received.slice(0, args.length) as string[]);
      if (settingsOf(command, context).json) context.terminal.json(rolled);
      else printRollout(context.terminal, rolled);
    });
  };
  const clientOf = (command: Command) => context.client(settingsOf(command, context));

  run('show', "show a skill's ramp and pinned callers", ['<skill>'], (command, [skill]) =>
    clientOf(command).getRollout(skill as string),
  );
  run(
    'set',
    'ramp a version to a share (0-100) of the unpinned callers',
    ['<skill>', '<version>', '<percent>'],
    (command, [skill, version, share]) =>
      clientOf(command).rampVersion(skill as string, {
        version: version as string,
        percent: percent(share as string),
      }),
  );
  run(
    'rollback',
    'roll back: the ramped version goes to 0% of the unpinned callers',
    ['<skill>'],
    (command, [skill]) => clientOf(command).rollBack(skill as string),
  );
  run(
    'pin',
    'pin a caller to a version range (it wins over the ramp)',
    ['<skill>', '<caller>', '<range>'],
    (command, [skill, caller, range]) =>
      clientOf(command).pinCaller(skill as string, caller as string, range as string),
  );
  run('unpin', "take a caller's pin away", ['<skill>', '<caller>'], (command, [skill, caller]) =>
    clientOf(command).unpinCaller(skill as string, caller as string),
  );
  for (const command of rollout.commands) command.exitOverride().configureOutput(program.configureOutput());
  rollout.exitOverride().configureOutput(program.configureOutput());
}

function printRollout(terminal: Terminal, { skill_id, ramp, pins }: SkillRollout): void {
  if (ramp === null) terminal.out(`${skill_id}: no ramp (unpinned callers run the latest version)`);
  else
    terminal.out(
      `${skill_id}: ${ramp.version} at ${ramp.percent}% of unpinned callers${ramp.percent === 0 ? ' (rolled back)' : ''}, set ${ramp.ramped_at} by ${ramp.ramped_by}`,
    );
  for (const pin of pins) terminal.out(`  pin ${pin.caller} → ${pin.version} (by ${pin.pinned_by})`);
}
