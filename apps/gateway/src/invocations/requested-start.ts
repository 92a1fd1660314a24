import { type InvocationRequest, SkillError } from '@skillrun/core';
import type { ScheduledStart } from '@skillrun/core/data';

type InvocationContext = NonNullable<InvocationRequest['context']>;

/**
 * The delayed start an invocation asks for: `context.delay_ms` after it is accepted, or
 * `context.run_at` (at once if that has passed); undefined when it asks for neither. Refused (400)
 * when it asks for both, for a start more than `maxDelayMs` after `now`, or with
 * `context.debounce`, whose calls say when it starts (`delay_ms` after the last one, or at once).
 */
export function requestedStartOf(
  context: InvocationContext | undefined,
  now: number,
  maxDelayMs: number,
): ScheduledStart | undefined {
  const { delay_ms: delayMs, run_at: runAt, debounce } = context ?? {};
  if (debounce && (delayMs !== undefined || runAt !== undefined)) {
    throw new SkillError(
      'INVALID_INPUT',
      'A debounced invocation starts when its calls say (context.debounce): it takes no delay_ms or run_at',
      {
        details: [
          {
            path: delayMs === undefined ? '/context/run_at' : '/context/delay_ms',
            message: 'must not be sent with debounce',
            code: 'INVALID_INPUT',
          },
        ],
      },
    );
  }
  if (delayMs !== undefined && runAt !== undefined) {
    throw new SkillError(
      'INVALID_INPUT',
      'context.delay_ms and context.run_at are two ways to say one thing: send one',
      {
        details: [
          { path: '/context/run_at', message: 'must not be sent with delay_ms', code: 'INVALID_INPUT' },
        ],
      },
    );
  }
  if (delayMs !== undefined) {
    if (delayMs > maxDelayMs) throw tooFar('/context/delay_ms', `must be at most ${maxDelayMs}`, maxDelayMs);
    return { afterMs: delayMs };
  }
  if (runAt === undefined) return undefined;
  const at = Date.parse(runAt);
  // The format allows a leap second (23:59:60), which no clock here can name.
  if (Number.isNaN(at)) {
    throw new SkillError('INVALID_INPUT', `context.run_at "${runAt}" is not a time this service can read`, {
      details: [{ path: '/context/run_at', message: 'must be an RFC 3339 date-time', code: 'INVALID_INPUT' }],
    });
  }
  const latest = now + maxDelayMs;
  if (at > latest) {
    throw tooFar('/context/run_at', `must be at most ${new Date(latest).toISOString()}`, maxDelayMs);
  }
  return { at };
}

function tooFar(path: string, message: string, maxDelayMs: number): SkillError {
  return new SkillError(
    'PARAM_OUT_OF_RANGE',
    `An invocation may start at most ${maxDelayMs} ms after it is accepted (MAX_DELAY_MS)`,
    { details: [{ path, message, code: 'PARAM_OUT_OF_RANGE' }] },
  );
}
