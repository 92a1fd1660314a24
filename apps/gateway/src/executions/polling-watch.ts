import type { ExecutionWatch } from './execution-watch';

/**
 * What a follower waits on where no watch could be had (this gateway keeps MAX_WAITERS already, or
 * its subscription did not come in time): it wakes the follower every `everyMs` to read the record
 * again, as if a change had been announced. Polling, so only in place of a watch.
 */
export function pollingWatch(everyMs: number): Pick<ExecutionWatch, 'next'> {
  return {
    next: (timeoutMs, signal) =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve('timeout');
        const timer = setTimeout(() => done('changed'), Math.min(everyMs, timeoutMs));
        const aborted = () => done('timeout');
        signal.addEventListener('abort', aborted, { once: true });
        function done(woken: 'changed' | 'timeout') {
          clearTimeout(timer);
          signal.removeEventListener('abort', aborted);
          resolve(woken);
        }
      }),
  };
}
