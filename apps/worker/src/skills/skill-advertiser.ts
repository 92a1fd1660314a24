import type { Logger } from '@skillrun/core';
import { type HostedEntry, hostedEntry, type SkillPauses, type SkillRegistry } from '@skillrun/core/data';
import type { LoadedSkill } from './loaded-skill';

export interface AdvertiserOptions {
  registry: SkillRegistry;
  /** The skills an operator paused: a version advertised here while its skill is paused starts paused. */
  pauses: SkillPauses;
  workerId: string;
  skills: LoadedSkill[];
  intervalMs: number;
  /** Its versions outlive its lease (WORKER_SCALE_TO_ZERO): withdrawing leaves them invocable. */
  scaleToZero: boolean;
  logger: Logger;
}

/** A version the registry will not let this worker host: it is published with other content. */
export class SkillConflictError extends Error {
  override readonly name = 'SkillConflictError';
}

/**
 * Keeps this worker's skill versions in the registry: a lease renewed every interval, withdrawn on
 * close. The first renewal fails the start when a version conflicts with what is published, and
 * holds the queues of the versions whose skill an operator paused.
 */
export class SkillAdvertiser {
  private timer: NodeJS.Timeout | undefined;
  private readonly entries: HostedEntry[];
  /** The renewal the timer started last. */
  private renewing: Promise<void> = Promise.resolve();

  constructor(private readonly options: AdvertiserOptions) {
    const now = new Date().toISOString();
    this.entries = options.skills.map((skill) => hostedEntry(skill.definition, skill.publication, now));
  }

  async start(): Promise<void> {
    const conflicts = await this.renew();
    if (conflicts.length > 0) throw new SkillConflictError(conflicts.join('; '));
    // Jobs reach a new version's queues only once it is advertised (gateways resolve it then).
    await this.options.pauses.holdAdvertised(
      this.entries.map((entry) => ({ skill: entry.id, version: entry.version })),
    );
    this.timer = setInterval(() => {
      this.renewing = this.renew()
        .then((later) => {
          if (later.length > 0) this.options.logger.error({ conflicts: later }, 'skill versions in conflict');
        })
        .catch((error: unknown) =>
          this.options.logger.warn({ err: (error as Error).message }, 'could not renew skill lease'),
        );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.options.registry.withdraw(this.options.workerId, this.entries);
  }

  /**
   * Advertises a hosted version loaded again (SKILLS_WATCH) with its skill.json and descriptor.json
   * as they now are; answers the sentences of renew when the registry refuses it, and the version
   * stays advertised as it was.
   */
  async update(skill: LoadedSkill): Promise<string[]> {
    const { name, version } = skill.definition;
    const index = this.entries.findIndex((entry) => entry.id === name && entry.version === version);
    const previous = this.entries[index];
    if (!previous) throw new Error(`${name}@${version} is not advertised by this worker`);
    const entry = hostedEntry(skill.definition, skill.publication, previous.registered_at);
    if (entry.digest === previous.digest) return [];
    this.entries[index] = entry;
    // A renewal under way may still write the previous entry: this one goes after it.
    await this.renewing;
    const conflicts = await this.renew([entry]);
    if (conflicts.length > 0) this.entries[index] = previous;
    return conflicts;
  }

  /** Renews the lease; answers a sentence for each version that could not be advertised. */
  private async renew(entries = this.entries): Promise<string[]> {
    const { registry, workerId, intervalMs, scaleToZero } = this.options;
    const outcomes = await registry.advertise({
      workerId,
      entries,
      leaseMs: intervalMs * 3,
      scaleToZero,
    });
    return outcomes.flatMap((outcome, index) => {
      const entry = entries[index];
      if (outcome === 'ok' || !entry) return [];
      const name = `${entry.id}@${entry.version}`;
      return outcome === 'registered'
        ? [`${name} is registered in the registry as a skill hosted elsewhere`]
        : [
            `${name} is hosted by another live worker (or one that stopped within the last three heartbeats) with a different skill.json or descriptor.json; give this one a new version`,
          ];
    });
  }
}
