import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { SkillDefinition } from '@skillrun/core';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { CliError, UsageError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { skillFolderFiles } from '../init/skill-folder';

const NAME = SkillDefinition.properties.name;

export function registerInitCommand(program: Command, context: CliContext): void {
  program
    .command('init')
    .summary('create a skill folder to write a code skill in')
    .description(
      "Create NAME/ in the current folder: a code skill's skill.json and index.ts (a greeting to change), with a package.json and a tsconfig.json to type-check it against @skillrun/skill. A worker hosts it when its SKILLS_DIR lists the current folder.",
    )
    .argument('<name>', `the skill's name, its id (${NAME.pattern}, at most ${NAME.maxLength} characters)`)
    .action(async (name: string) => {
      if (!Value.Check(NAME, name)) {
        throw new UsageError(
          `"${name}" is not a skill name: it must match ${NAME.pattern} (at most ${NAME.maxLength} characters)`,
        );
      }
      const parent = process.cwd();
      await mkdir(join(parent, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
        throw new CliError(`${name} already exists in ${parent}: nothing was written`, ExitCode.Failed);
      });
      const files = skillFolderFiles(name);
      for (const [file, text] of Object.entries(files)) await writeFile(join(parent, name, file), text);
      const { terminal } = context;
      terminal.out(`Created ${name}/: ${Object.keys(files).join(', ')}`);
      terminal.out(`Host it: SKILLS_DIR=skills:${parent} npm start, in the skillrun repository`);
      terminal.out(
        `Type-check it: cd ${name} && npm install --save-dev ${skillPackageFolder()} && npm run check`,
      );
    });
}

/** packages/skill of the repository this command line comes from (@skillrun/skill is not on npm yet). */
function skillPackageFolder(): string {
  return dirname(fileURLToPath(import.meta.resolve('@skillrun/skill/package.json')));
}
