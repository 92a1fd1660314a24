import { type Logger, pino } from 'pino';

/** A logged line, as a test reads it. */
export interface LoggedLine {
  msg: string;
}

/**
 * A logger at `info` whose lines are kept, parsed, in `lines` (in the order written), for a test to
 * read what a component said; the test may empty `lines` between steps.
 */
export function capturedLogger(): { logger: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}
