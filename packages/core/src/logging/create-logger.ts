import { type Logger, pino } from 'pino';

export type { Logger };

/** Field names that hold secrets: credentials, keys, passwords, and the HTTP headers that carry them. */
const SECRET_FIELDS = [
  'credentials',
  'api_key',
  'apiKey',
  'password',
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'LLM_API_KEY',
  'ADMIN_API_KEY',
  'REDIS_SENTINEL_PASSWORD',
];

/** Each field at the top of a log line and up to three objects down (`{req: {headers: {cookie}}}`). */
const REDACT_PATHS = SECRET_FIELDS.flatMap((field) =>
  ['', '*', '*.*', '*.*.*'].map((parents) => `${parents}["${field}"]`),
);

/** Structured JSON logs; anything that looks like a credential is redacted wherever it appears. */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  });
}
