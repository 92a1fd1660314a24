import type { Logger } from '@skillrun/core';

/**
 * An attempt's lines, tagged with its execution, skill and trace ids and its number. The child
 * logger that tags them is made when a line first needs it: pino serializes a child's tags as it
 * makes it, which cost more than the one line (`execution completed`) most attempts write, so that
 * line goes out with the tags as fields instead when no child exists.
 */
export class AttemptLog {
  private child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly tags: Record<string, string | number>,
  ) {}

  get logger(): Logger {
    this.child ??= this.parent.child(this.tags);
    return this.child;
  }

  /** One line at `level`, through the child if there is one, else with the tags as fields. */
  line(level: 'info' | 'warn', fields: Record<string, unknown>, message: string): void {
    if (this.child) this.child[level](fields, message);
    else this.parent[level]({ ...this.tags, ...fields }, message);
  }

  /** A debug line, which at any other level costs nothing (not even the child). */
  debug(message: string): void {
    if (this.parent.isLevelEnabled('debug')) this.logger.debug(message);
  }
}
