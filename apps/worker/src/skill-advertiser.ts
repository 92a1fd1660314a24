import type { Logger, SkillCatalog, SkillDefinition } from '@skillrun/core';

export interface AdvertiserOptions {
  catalog: SkillCatalog;
  workerId: string;
  skills: SkillDefinition[];
  intervalMs: number;
  logger: Logger;
}

/** Keeps this worker's skills in the catalog: a lease renewed every interval, withdrawn on close. */
export class SkillAdvertiser {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: AdvertiserOptions) {}

  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      this.renew().catch((error: unknown) =>
        this.options.logger.warn({ err: (error as Error).message }, 'could not renew skill lease'),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const { catalog, workerId, skills } = this.options;
    await catalog.withdraw(
      workerId,
      skills.map((skill) => skill.name),
    );
  }

  private renew(): Promise<void> {
    const { catalog, workerId, skills, intervalMs } = this.options;
    return catalog.advertise({ workerId, skills, leaseMs: intervalMs * 3 });
  }
}
