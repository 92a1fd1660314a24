import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { GatedRuns } from './gated-runs';
import type { ServiceProcess } from './service-process';
import { TestSystem } from './system';

const FLOW_SKILLS = fileURLToPath(new URL('../fixtures/flow-skills', import.meta.url));

/**
 * A system on the flow-control fixtures (test/fixtures/flow-skills) as the flow tests drive it: its
 * gated runs, a connection to its Redis, and the workers each test starts for itself (`worker`),
 * which `reset` stops after the test once every gate is open, so that no execution a failed test
 * left gated takes a later test's worker slots.
 */
export class FlowSystem {
  private workers: ServiceProcess[] = [];

  private constructor(
    readonly system: TestSystem,
    readonly runs: GatedRuns,
    readonly redis: Redis,
  ) {}

  /** `env`: the gateway's and every worker's settings besides the fixtures' folder. */
  static async start(env: Record<string, string> = {}): Promise<FlowSystem> {
    const system = await TestSystem.start({ SKILLS_DIR: FLOW_SKILLS, ...env });
    return new FlowSystem(system, await GatedRuns.start(system.client), new Redis(system.redis.url));
  }

  async worker(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const started = await this.system.addWorker(env);
    this.workers.push(started);
    return started;
  }

  async reset(): Promise<void> {
    await this.runs.openAll();
    await Promise.all(this.workers.splice(0).map((worker) => worker.stop()));
  }

  async stop(): Promise<void> {
    this.redis.disconnect();
    await this.system.stop();
    await this.runs.close();
  }
}
