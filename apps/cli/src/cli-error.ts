import { ExitCode } from './exit-codes';

/** A failure the CLI itself detects, with the exit code it means and what to do about it. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Bad flags or bad input: nothing was sent (exit code 2). */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.Usage, hint);
  }
}
