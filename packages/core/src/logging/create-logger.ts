import { type Logger, pino } from 'pino';

export type { Logger };

/** Field names that hold secrets: credentials, keys, passwords, and the HTTP headers that carry them. */
const SECRET_FIELDS = new Set([
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
]);

const CENSOR = '[redacted]';
/** Objects this deep (`{req: {headers: {cookie}}}` is three) are searched for secrets. */
const DEPTH = 4;

/**
 * A copy of `value` with every secret field censored, up to DEPTH objects down; the value itself
 * when it holds none (the usual line costs a walk over its few fields, no copy). Pino's path-based
 * redaction needs a wildcard path per field and depth, and cost a tenth of the worker's main thread.
 */
export function redactSecrets<T>(value: T, depth = DEPTH): T {
  if (depth === 0 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [key, field] of Object.entries(value)) {
    const redacted = SECRET_FIELDS.has(key) ? CENSOR : redactSecrets(field, depth - 1);
    if (redacted === field) continue;
    copy ??= Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) };
    (copy as Record<string, unknown>)[key] = redacted;
  }
  return (copy ?? value) as T;
}

/**
 * Structured JSON logs to stdout; anything that looks like a credential is redacted wherever it
 * appears.
 */
export function createLogger(name: string, level = 'info'): Logger {
  return pino(
    {
      name,
      level,
      base: { service: name },
      timestamp: isoTime(),
      formatters: {
        bindings: (bindings) => redactSecrets(bindings),
        log: (object) => redactSecrets(object),
      },
    },
    logDestination(),
  );
}

/**
 * pino's ISO `time`, formatted once per millisecond: a busy worker writes several lines in one, and
 * formatting the date for each was ~1% of its main thread.
 */
function isoTime(): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

/** Lines are written once this many bytes are waiting, or after FLUSH_MS, whichever comes first. */
const BUFFER_BYTES = 4096;
const FLUSH_MS = 100;

/**
 * Standard output, written in batches: a line waits at most FLUSH_MS. One write per line cost a
 * busy worker a tenth of its main thread; pino writes what is left when the process exits.
 */
function logDestination() {
  return pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES, periodicFlush: FLUSH_MS });
}
