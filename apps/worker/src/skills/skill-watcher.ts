import { type FSWatcher, watch } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { Logger } from '@skillrun/core';
import type { HostedSkills } from './hosted-skills';
import type { LoadedSkill } from './loaded-skill';
import type { SkillReloader } from './skill-reloader';

/** Changes closer together than this are one edit: an editor's save is often several writes. */
const QUIET_MS = 200;

export interface SkillWatcherOptions {
  hosted: HostedSkills;
  reloader: SkillReloader;
  logger: Logger;
}

/**
 * SKILLS_WATCH: watches the folder of each hosted skill (its skill.json's, and below it but for
 * node_modules) and, once its files have been quiet for QUIET_MS after a change, loads the skill
 * again. A skill whose new load fails runs on as it was, and one log line says why. One reload of
 * a skill at a time: a change during one brings another after it.
 */
export class SkillWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly quiet = new Map<LoadedSkill, NodeJS.Timeout>();
  private readonly reloads = new Map<LoadedSkill, Promise<void>>();
  private closed = false;

  constructor(private readonly options: SkillWatcherOptions) {}

  start(): void {
    for (const skill of this.options.hosted.all) {
      const watcher = watch(dirname(skill.file), { recursive: true }, (_event, file) => {
        if (!file?.split(sep).includes('node_modules')) this.changed(skill);
      });
      watcher.on('error', (error) =>
        this.options.logger.warn({ err: error.message, file: skill.file }, "a skill's folder is not watched"),
      );
      // A worker that hands its executions back on close exits without closing this.
      watcher.unref();
      this.watchers.push(watcher);
    }
  }

  /**
   * Stops watching. A reload under way is not waited for: with Redis away it would hold the
   * shutdown; it ends in a log line, and the executions that follow are another worker's.
   */
  close(): void {
    this.closed = true;
    for (const watcher of this.watchers) watcher.close();
    for (const timer of this.quiet.values()) clearTimeout(timer);
  }

  /** `skill` as hosted at start: its name and version are those of every later load. */
  private changed(skill: LoadedSkill): void {
    clearTimeout(this.quiet.get(skill));
    const timer = setTimeout(() => {
      this.quiet.delete(skill);
      const before = this.reloads.get(skill) ?? Promise.resolve();
      this.reloads.set(
        skill,
        before.then(() => this.reload(skill)),
      );
    }, QUIET_MS);
    timer.unref();
    this.quiet.set(skill, timer);
  }

  private async reload({ definition: { name, version } }: LoadedSkill): Promise<void> {
    if (this.closed) return;
    const { reloader, logger } = this.options;
    const fields = { skill_id: name, skill_version: version };
    try {
      await reloader.reload(name, version);
      logger.info(fields, `skill ${name}@${version} reloaded: its next executions run it as it now is`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.error(fields, `skill ${name}@${version} not reloaded, it runs on as it was: ${reason}`);
    }
  }
}
