/** What append-chunks.lua announces after the execution's id: more output, not a change of status. */
const CHUNK = 'chunk';

/**
 * One request's watch on an execution's changes (see ExecutionWatcher). Announcements are
 * kept from the moment the watch begins, so that a change announced while the request re-reads the
 * record is not lost before the request starts waiting.
 */
export class ExecutionWatch {
  /** The statuses announced so far; null stands for "announcements may have been lost". */
  private readonly announced: (string | null)[] = [];
  private wake: (() => void) | undefined;
  /** How many announcements next() has handed out. */
  private consumed = 0;
  /** The announcement of the execution's end, which carries the record as it ended. */
  private end: string | undefined;
  /** More output was announced since next() last looked (the stream reads it from Redis). */
  private chunked = false;

  constructor(
    /** Settles once the channel is subscribed to: only then is no announcement missed. */
    readonly subscribed: Promise<void>,
    /** Ends the watch (called by release). */
    private readonly onRelease: (watch: ExecutionWatch) => void,
  ) {}

  /**
   * A change was announced (transition.lua): its new status, first line of the message; `chunk`
   * when the execution streamed more output (append-chunks.lua), which is no change of its status;
   * null when the connection to Redis was lost.
   */
  announce(message: string | null): void {
    if (message === CHUNK) {
      this.chunked = true;
      this.wake?.();
      return;
    }
    const lineEnd = message === null ? -1 : message.indexOf('\n');
    if (message !== null && lineEnd !== -1) this.end = message;
    this.announced.push(message === null || lineEnd === -1 ? message : message.slice(0, lineEnd));
    this.wake?.();
  }

  /** The announcement of the end, once heard: ExecutionWatchers.announced reads the record from it. */
  get ending(): string | undefined {
    return this.end;
  }

  /**
   * Resolves when an announced status (already, or from now on; not one next() handed out) is one
   * `wanted` accepts, when announcements may have been lost (then only a fresh read knows), after
   * `timeoutMs`, or when `signal` aborts.
   */
  until(wanted: (status: string) => boolean, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.waitFor(
      () => this.announced.slice(this.consumed).some((status) => status === null || wanted(status)),
      timeoutMs,
      signal,
    );
  }

  /**
   * For a request that follows every change (a stream): resolves 'changed' when a change was
   * announced since the last call, 'chunks' when only more output was, 'lost' when announcements
   * may have been lost, 'timeout' after `timeoutMs` or when `signal` aborts.
   */
  async next(timeoutMs: number, signal: AbortSignal): Promise<'changed' | 'chunks' | 'lost' | 'timeout'> {
    await this.waitFor(() => this.chunked || this.announced.length > this.consumed, timeoutMs, signal);
    const seen = this.announced.slice(this.consumed);
    const chunked = this.chunked;
    this.consumed += seen.length;
    this.chunked = false;
    if (seen.includes(null)) return 'lost';
    if (seen.length > 0) return 'changed';
    return chunked ? 'chunks' : 'timeout';
  }

  /** Ends the watch; the channel is left when no other request watches it. */
  release(): void {
    this.onRelease(this);
  }

  /** Resolves once `settled` holds (checked now and at each announcement), after `timeoutMs`, or on abort. */
  private waitFor(settled: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || settled()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      signal.addEventListener('abort', finish, { once: true });
      this.wake = () => {
        if (settled()) finish();
      };
    });
  }
}
