import { type Command, Option } from 'commander';
import { DEFAULT_URL } from '../settings';

/**
 * The settings every command that talks to the service takes, on the program (before the command)
 * and on the command itself (after it): `skillrun --json skills` and `skillrun skills --json`.
 */
export function withServiceOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', `the service (env SKILLRUN_URL, default ${DEFAULT_URL})`))
    .addOption(new Option('--api-key <key>', 'an API key, sent as X-API-Key (env SKILLRUN_API_KEY)'))
    .addOption(new Option('--token <token>', 'a bearer token, e.g. an OAuth 2 JWT (env SKILLRUN_TOKEN)'))
    .addOption(
      new Option(
        '--caller <id>',
        "the caller you invoke as (env SKILLRUN_CALLER; default: an API key's own caller, from the service's GET /me; a JWT's sub; else your user name)",
      ),
    )
    .addOption(new Option('--json', 'print JSON on stdout, for scripts'));
}
