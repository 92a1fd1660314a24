import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { type GlobalFlags, resolveSettings, type Settings } from '../settings';

/** The settings of the command being run (its flags and the program's, then the environment). */
export function settingsOf(command: Command, context: CliContext): Settings {
  const settings = resolveSettings(command.optsWithGlobals<GlobalFlags>(), context.env);
  context.settings = settings;
  return settings;
}
