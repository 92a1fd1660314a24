import type { Logger } from '../logging/create-logger';

export interface StopOptions {
  /** What closing does, for the log line. */
  what?: string;
  /** Exits 1 when closing outlasts it (closing can wait on a Redis that is away). */
  deadlineMs?: number;
  /** Runs after a clean close, before exiting 0: the process's tracing exports the spans it still buffers. */
  flush: () => Promise<void>;
}

/**
 * The shutdown every process shares: on SIGTERM or SIGINT, log, run `close` once (it lets work in
 * flight finish), `flush` and exit 0, or 1 when closing fails or outlasts `deadlineMs`. A second
 * signal exits at once (1): an operator who asks twice does not want to wait. SIGHUP (its terminal
 * closed) stops it the same way: Node's default would end it on the spot, leaving what it started
 * in a process group of its own (npm start's private Redis) running.
 */
export function stopOnSignals(
  logger: Logger,
  close: () => Promise<void>,
  { what = 'finishing work in flight', deadlineMs, flush }: StopOptions,
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without finishing');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, `stopping: ${what}`);
    if (deadlineMs !== undefined) {
      setTimeout(() => {
        logger.error({ deadline_ms: deadlineMs }, 'could not stop within the deadline: exiting');
        process.exit(1);
      }, deadlineMs).unref();
    }
    close().then(
      () => flush().then(() => process.exit(0)),
      (error: unknown) => {
        logger.error({ err: error }, 'could not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
}

/** Ends a process that could not start: operator-facing errors print their message, others in full. */
export function exitOnStartupError(
  error: unknown,
  operatorErrors: Array<new (...args: never[]) => Error>,
): never {
  const known = operatorErrors.some((kind) => error instanceof kind);
  console.error(known ? (error as Error).message : error);
  process.exit(1);
}
