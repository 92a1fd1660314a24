/** What a running skill reported and is not written yet: its progress, its metadata as JSON. */
export interface RunningReport {
  progress?: number;
  /** The execution's metadata as the skill last set it (ctx.metadata), the whole object as JSON. */
  metadata?: string;
}

/**
 * A skill's progress and metadata (ctx.progress, ctx.metadata), written to its record at most once
 * per interval, the two in one write: a skill that reports on every item does not cost a Redis write
 * per item, and what a skill that ends within the interval reported is written with its outcome, in
 * the same write.
 */
export class ProgressReporter {
  private pending: RunningReport = {};
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(
    private readonly write: (report: RunningReport) => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  report(value: number): void {
    this.add({ progress: value });
  }

  /** The metadata as the skill set it: the whole object as JSON, replacing what was reported before. */
  reportMetadata(json: string): void {
    this.add({ metadata: json });
  }

  /** Stops reporting; answers what was not written yet, for the outcome's write. */
  finish(): RunningReport {
    this.finished = true;
    clearTimeout(this.timer);
    return this.pending;
  }

  private add(report: RunningReport): void {
    if (this.finished) return;
    this.pending = { ...this.pending, ...report };
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  private flush(): void {
    this.timer = undefined;
    const report = this.pending;
    this.pending = {};
    if (report.progress !== undefined || report.metadata !== undefined)
      void this.write(report).catch(() => {});
  }
}
