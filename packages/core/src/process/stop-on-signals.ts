import { flushTraces } from '@skillrun/telemetry';
import type { Logger } from '../logging/create-logger';

/**
 * The shutdown every process shares: on SIGTERM or SIGINT, log, run `close` once (it lets work in
 * flight finish), export the spans still buffered and exit 0, or 1 when closing fails or outlasts
 * `deadlineMs` (closing can wait on a Redis that is away). A second signal exits at once (1): an operator who asks twice does not
 * want to wait.
 */
export function stopOnSignals(
  logger: Logger,
  close: () => Promise<void>,
  what = 'finishing work in flight',
  deadlineMs?: number,
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
      () => flushTraces().then(() => process.exit(0)),
      (error: unknown) => {
        logger.error({ err: error }, 'could not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
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
