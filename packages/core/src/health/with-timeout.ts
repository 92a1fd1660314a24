/** The operation's result, or a rejection once `timeoutMs` has passed without one. */
export async function withTimeout<T>(operation: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([operation, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs}ms`);
  }
}

/**
 * Refills a gauge read from Redis at scrape time: a scrape never hangs on Redis, and never shows
 * numbers it could not read (the gauge is left empty then); false when it could not.
 */
export async function refillWithin(
  gauge: { reset(): void },
  timeoutMs: number,
  read: () => Promise<void>,
): Promise<boolean> {
  gauge.reset();
  try {
    await withTimeout(read(), timeoutMs);
    return true;
  } catch {
    gauge.reset();
    return false;
  }
}
