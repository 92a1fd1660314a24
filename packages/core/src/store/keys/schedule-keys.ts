/** The keys of schedules and of their runs. */
export class ScheduleKeys {
  constructor(private readonly prefix: string) {}

  /** HASH of one schedule: its definition (JSON), and the execution of its latest launched run. */
  schedule(id: string): string {
    return `${this.prefix}:schedule:${id}`;
  }

  /** ZSET of one schedule's latest runs (JSON), scored by their due time (epoch ms). */
  scheduleRuns(id: string): string {
    return `${this.prefix}:schedule:${id}:runs`;
  }

  /**
   * ZSET (all scores 0) of `<created ms, 13 digits>:<id>` of every schedule, or one owner's: listed in
   * the order they were made, from a member on (the cursor); its size is the owner's count.
   */
  schedules(owner?: string): string {
    return owner === undefined ? `${this.prefix}:schedules` : `${this.prefix}:schedules:by:${owner}`;
  }
}
