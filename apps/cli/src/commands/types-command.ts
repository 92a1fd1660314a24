import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { generateSkillTypes } from '../types/generate-skill-types';
import { settingsOf } from './command-settings';
import { withServiceOptions } from './service-options';

export function registerTypesCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('types')
      .summary('generate TypeScript types for skills')
      .description(
        "Generate TypeScript input and output types from the skills' descriptors, with the SkillTypes augmentation of @skillrun/client that makes client.skill('id').invoke({...}) type-checked. Name a version range as id@range (text_stats@^1).",
      )
      .argument('<skills...>', 'skill ids (or id@range)')
      .option('-o, --out <file>', 'write to this file (e.g. skills.d.ts) instead of stdout'),
  ).action(async (skills: string[], flags: { out?: string }, command: Command) => {
    const settings = settingsOf(command, context);
    const client = context.client(settings);
    const descriptors = [];
    for (const skill of skills) {
      const at = skill.lastIndexOf('@');
      const [id, version] =
        at > 0 && !skill.includes('://') ? [skill.slice(0, at), skill.slice(at + 1)] : [skill];
      descriptors.push(await client.describe(id as string, version === undefined ? {} : { version }));
    }
    const code = await generateSkillTypes(descriptors, settings.baseUrl);
    if (flags.out === undefined) {
      context.terminal.stdout.write(code);
      return;
    }
    await writeFile(flags.out, code);
    context.terminal.err(
      `Wrote the types of ${descriptors.map((d) => `${d.id} ${d.version}`).join(', ')} to ${flags.out}`,
    );
  });
}
