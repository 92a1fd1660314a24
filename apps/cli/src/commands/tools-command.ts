import type { ToolFormat } from '@skillrun/client';
import { type Command, Option } from 'commander';
import type { CliContext } from '../cli-context';
import { settingsOf } from './command-settings';
import { positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ToolsFlags {
  format: ToolFormat;
  tag?: string;
  limit?: number;
  cursor?: string;
}

const FORMATS: ToolFormat[] = ['openai', 'openai-responses', 'anthropic', 'mcp'];

/**
 * `skillrun tools`: the skills as one framework's tool definitions, printed as the JSON the
 * framework loads (the `tools` array alone, to pipe into a file; `--json` for the whole answer).
 */
export function registerToolsCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('tools')
      .summary("print the skills as an agent framework's tool definitions")
      .description(
        'Print the skills you may see (those matching every word given) as tool definitions: the `tools` array an OpenAI, Anthropic or MCP client takes as it is.',
      )
      .argument('[words...]', 'words that must all appear in the id, name, description or tags')
      .addOption(new Option('--format <format>', 'the tool format').choices(FORMATS).default('openai'))
      .option('--tag <tag>', 'only skills with this tag')
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (words: string[], flags: ToolsFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const answer = await context.client(settings).tools({
      format: flags.format,
      ...(words.length > 0 ? { q: words.join(' ') } : {}),
      ...(flags.tag === undefined ? {} : { tag: flags.tag }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    });
    context.terminal.json(settings.json ? answer : answer.tools);
    if (answer.next_cursor) context.terminal.err(`More: add --cursor ${answer.next_cursor}`);
  });
}
