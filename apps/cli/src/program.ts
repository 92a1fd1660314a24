import { Command } from 'commander';
import { CLI_VERSION, type CliContext } from './cli-context';
import { registerApprovalsCommand } from './commands/approvals-command';
import { registerAuditCommand } from './commands/audit-command';
import { registerCancelCommand } from './commands/cancel-command';
import { registerDescribeCommand } from './commands/describe-command';
import { registerExecutionsCommand } from './commands/executions-command';
import { registerInitCommand } from './commands/init-command';
import { registerInvokeCommand } from './commands/invoke-command';
import { registerPauseCommands } from './commands/pause-command';
import { registerReplayCommand } from './commands/replay-command';
import { registerRolloutCommand } from './commands/rollout-command';
import { registerSchedulesCommand } from './commands/schedules-command';
import { withServiceOptions } from './commands/service-options';
import { registerSkillsCommand } from './commands/skills-command';
import { registerStatusCommands } from './commands/status-command';
import { registerToolsCommand } from './commands/tools-command';
import { registerTypesCommand } from './commands/types-command';
import { EXIT_CODES_HELP } from './exit-codes';
import { DEFAULT_URL } from './settings';

const EXAMPLES = `Examples:
  $ skillrun skills text
  $ skillrun describe text_stats
  $ skillrun invoke text_stats text="One fish. Two fish!" --wait
  $ skillrun invoke text_stats --input @inputs.json
  $ skillrun invoke --batch items.jsonl --wait
  $ skillrun status text_stats 5d0c3d9e-… --wait
  $ skillrun executions --status failed --since 1h
  $ skillrun schedules create text_stats text="Hello" --cron '0 9 * * 1-5' --timezone Europe/Paris
  $ skillrun pause text_stats
  $ skillrun skills rollout set text_stats 2.0.0 10
  $ skillrun approvals approve 5d0c3d9e-… --reason 'checked'
  $ skillrun cancel --all --skill text_stats --status accepted
  $ skillrun types text_stats --out skills.d.ts
  $ skillrun keys create --caller alice --scopes skill:invoke,skill:read`;

/** The `skillrun` command line: every command, on `context`'s terminal and service. */
export function createProgram(context: CliContext): Command {
  const { terminal } = context;
  const program = withServiceOptions(
    new Command('skillrun')
      .description('Discover, invoke and follow skills on a skillrun service.')
      .version(CLI_VERSION, '-V, --version', 'print the version')
      .enablePositionalOptions()
      .showHelpAfterError('(run with --help for usage)')
      .exitOverride()
      .configureOutput({
        writeOut: (text) => terminal.stdout.write(text),
        writeErr: (text) => terminal.stderr.write(text),
        outputError: (text, write) =>
          write(`${terminal.errStyle(['bold', 'red'], 'error:')} ${text.replace(/^error: /, '')}`),
      }),
  );
  registerRolloutCommand(registerSkillsCommand(program, context), program, context);
  registerToolsCommand(program, context);
  registerDescribeCommand(program, context);
  registerInvokeCommand(program, context);
  registerStatusCommands(program, context);
  registerCancelCommand(program, context);
  registerReplayCommand(program, context);
  registerExecutionsCommand(program, context);
  registerSchedulesCommand(program, context);
  registerPauseCommands(program, context);
  registerAuditCommand(program, context);
  registerApprovalsCommand(program, context);
  registerTypesCommand(program, context);
  registerInitCommand(program, context);
  // Run by runCli before this parser sees it (its flags are its own); listed here for --help.
  program.command('keys').summary('create, list and revoke API keys (straight in Redis)').helpOption(false);
  for (const command of program.commands) command.exitOverride().configureOutput(program.configureOutput());
  program.addHelpText(
    'after',
    `
Settings: flags first, then the environment: SKILLRUN_URL (default ${DEFAULT_URL}),
SKILLRUN_API_KEY, SKILLRUN_TOKEN, SKILLRUN_CALLER; NO_COLOR turns colour off.

${EXIT_CODES_HELP}
  130 interrupted (Ctrl-C while watching; the execution goes on)

${EXAMPLES}`,
  );
  return program;
}
