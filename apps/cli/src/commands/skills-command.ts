import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface SkillsFlags {
  tag?: string;
  capability?: string;
  category?: string;
  limit?: number;
  cursor?: string;
}

/** `skillrun skills`: list or search the skills; answers the command, which has subcommands of its own. */
export function registerSkillsCommand(program: Command, context: CliContext): Command {
  return withServiceOptions(
    program
      .command('skills')
      .alias('search')
      .summary('list or search the skills')
      .description('List the skills (each once, its latest version), or those matching every word given.')
      .argument('[words...]', 'words that must all appear in the id, name, description or tags')
      .option('--tag <tag>', 'only skills with this tag')
      .option('--capability <type>', 'only skills of this capability_type')
      .option('--category <category>', 'only skills in this category')
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (words: string[], flags: SkillsFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const page = await context.client(settings).listSkills({
      ...(words.length > 0 ? { q: words.join(' ') } : {}),
      ...(flags.tag === undefined ? {} : { tag: flags.tag }),
      ...(flags.capability === undefined ? {} : { capability_type: flags.capability }),
      ...(flags.category === undefined ? {} : { category: flags.category }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    });
    if (settings.json) {
      terminal.json(page);
      return;
    }
    if (page.skills.length === 0) {
      terminal.err(words.length > 0 ? 'No skill matches.' : 'No skills.');
      return;
    }
    const lines = renderTable(
      [
        { header: 'ID', value: (skill) => skill.id },
        { header: 'VERSION', value: (skill) => skill.version },
        { header: 'CAPABILITY', value: (skill) => skill.capability_type },
        { header: 'DESCRIPTION', value: (skill) => skill.description, shrink: true },
      ],
      page.skills,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    for (const line of lines) terminal.out(line);
    if (page.next_cursor) terminal.err(`More: add --cursor ${page.next_cursor}`);
  });
}
