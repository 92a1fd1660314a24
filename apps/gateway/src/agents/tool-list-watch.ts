import { createHash } from 'node:crypto';
import type { Logger } from '@skillrun/core';
import type { SkillRegistry } from '@skillrun/core/data';

export interface ToolListWatchOptions {
  registry: SkillRegistry;
  /** How often the registry is read, while `active()` says someone listens. */
  intervalMs: number;
  /** Whether anyone listens now (an MCP session is open): no reads otherwise. */
  active: () => boolean;
  /** Called when the skills changed: a version published or withdrawn, deprecated, or its workers gone. */
  onChange: () => void;
  logger: Logger;
}

/** Skill ids read per round trip. */
const BATCH = 500;

/**
 * Notices when the tool list changes, for MCP's notifications/tools/list_changed. The registry
 * announces nothing, so this reads it (every version of every skill: two round trips per 500
 * skills) every `intervalMs` while MCP sessions are open, and compares a digest of what each
 * version is: its id and version, whether it is available and whether it is deprecated.
 */
export class ToolListWatch {
  private timer: NodeJS.Timeout | undefined;
  private digest: string | undefined;
  private reading = false;

  constructor(private readonly options: ToolListWatchOptions) {}

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    if (this.reading) return;
    if (!this.options.active()) {
      // Read afresh once someone listens again: what changed meanwhile nobody was told of.
      this.digest = undefined;
      return;
    }
    this.reading = true;
    try {
      const digest = await this.read();
      if (this.digest !== undefined && digest !== this.digest) this.options.onChange();
      this.digest = digest;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'tool list check failed');
    } finally {
      this.reading = false;
    }
  }

  private async read(): Promise<string> {
    const hash = createHash('sha256');
    const { registry } = this.options;
    let after: string | undefined;
    for (;;) {
      const ids = await registry.ids(after, BATCH);
      const versions = await registry.versionsOf(ids);
      for (const id of ids) {
        for (const version of versions.get(id) ?? []) {
          hash.update(`${id}@${version.version}:${version.available}:${version.deprecation ? 'd' : ''}\n`);
        }
      }
      if (ids.length < BATCH) break;
      after = ids.at(-1);
    }
    return hash.digest('hex');
  }
}
