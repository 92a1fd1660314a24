import type { Response } from 'express';

/**
 * Aborts when the client goes away, for a request that waits. 'close' is also emitted once the
 * answer is sent, when aborting no longer matters: it is not aborted then (an abort makes a
 * DOMException, stack trace and all, and every waiting request's answer would pay for one).
 */
export function goneSignal(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
