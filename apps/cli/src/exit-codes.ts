/** What `skillrun` exits with: scripts may rely on these. */
export const ExitCode = {
  /** Done; for `invoke --wait` and `wait`: the execution completed. */
  Ok: 0,
  /** The execution ended failed, timeout or canceled, or what the command asked for failed. */
  Failed: 1,
  /** A usage error: bad flags, bad input (nothing was run). */
  Usage: 2,
  /** No such skill, version or execution. */
  NotFound: 3,
  /** Credentials missing, invalid or not enough (401, 403). */
  Auth: 4,
  /** The service is unavailable or unreachable. */
  Unavailable: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The table `--help` and the README show. */
export const EXIT_CODES_HELP = `Exit codes:
  0  success (invoke --wait: the execution completed)
  1  the execution ended failed, timeout or canceled, or the command failed
  2  usage error: bad flags or bad input
  3  not found: no such skill, version, execution or schedule
  4  authentication or access: missing, invalid or insufficient credentials (401, 403)
  5  the service is unavailable or unreachable`;
