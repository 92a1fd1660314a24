import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { type CliContext, createCliContext } from './cli-context';
import { reportOf } from './error-report';
import { ExitCode } from './exit-codes';
import { printReport } from './print-report';
import { createProgram } from './program';

/** The repository this runs from (src/ and dist/ sit at the same depth): where `npm start` keeps its data. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs one `skillrun` command line; resolves to the exit code (errors are reported, never thrown). */
export async function runCli(argv: string[], context: CliContext = createCliContext()): Promise<number> {
  // keys has flags of its own (parsed as the keys CLI always has): it is not commander's.
  if (argv[0] === 'keys' || (argv[0] === 'help' && argv[1] === 'keys')) {
    const { runKeys } = await loadKeys();
    return runKeys(argv[0] === 'help' ? ['--help'] : argv.slice(1), context.env, REPO_ROOT);
  }
  const program = createProgram(context);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message (or the help, or the version) already.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    const json = context.settings?.json ?? argv.includes('--json');
    const report = reportOf(error, context.settings, context.withheldFrom);
    printReport(context.terminal, report, json);
    if (context.env.SKILLRUN_DEBUG && error instanceof Error) context.terminal.err(error.stack ?? '');
    return report.exitCode;
  }
}

/**
 * The keys command, loaded only when it runs (it brings the service's Redis code with it): the
 * bundle beside this one when running bundled (`npm run build` writes both), else the source.
 */
function loadKeys(): Promise<typeof import('./keys/index')> {
  const bundled = import.meta.url.endsWith('.mjs');
  return import(new URL(bundled ? './keys.mjs' : './keys/index.ts', import.meta.url).href);
}
