/**
 * A skill's progress, written to its record at most once per interval: a skill that reports on
 * every item does not cost a Redis write per item, and progress reported by a skill that ends within
 * the interval is written with its outcome, in the same write.
 */
export class ProgressReporter {
  private pending: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(
    private readonly write: (value: number) => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  report(value: number): void {
    if (this.finished) return;
    this.pending = value;
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Stops reporting; answers the progress not written yet, for the outcome's write. */
  finish(): number | undefined {
    this.finished = true;
    clearTimeout(this.timer);
    return this.pending;
  }

  private flush(): void {
    this.timer = undefined;
    const value = this.pending;
    this.pending = undefined;
    if (value !== undefined) void this.write(value).catch(() => {});
  }
}
