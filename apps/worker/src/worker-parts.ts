import { SkillSchemas } from '@skillrun/core';
import { engineOf, SkillResolver } from '@skillrun/core/data';
import { type AttemptPart, buildAttempt } from './attempt/build-attempt';
import { buildBodies } from './bodies/build-bodies';
import type { LlmBody } from './bodies/llm-body';
import { buildComposites, type CompositesPart } from './composite/build-composites';
import { StepLauncher } from './composite/step-launcher';
import { buildConsumers } from './consumers/build-consumers';
import type { QueueConsumer } from './consumers/queue-consumer';
import { buildFlow } from './flow/build-flow';
import { buildMetrics, type MetricsPart } from './metrics/build-metrics';
import { buildSandbox } from './sandbox/build-sandbox';
import type { SkillSandbox } from './sandbox/skill-sandbox';
import { buildSkills, buildSkillUpkeep, type SkillsPart, type SkillUpkeep } from './skills/build-skills';
import { buildWebhooks, type WebhookParts } from './webhooks/build-webhooks';
import { buildShared, type WorkerContext, type WorkerShared } from './worker-shared';

/** What a worker process is made of, wired and not started yet: WorkerService starts and closes it. */
export interface WorkerParts {
  shared: WorkerShared;
  skills: SkillsPart;
  sandbox: SkillSandbox;
  attempt: AttemptPart;
  /** A consumer per queue of each hosted skill (and the remote queues), all sharing the process's slots. */
  consumers: QueueConsumer[];
  composites: CompositesPart;
  upkeep: SkillUpkeep;
  metrics: MetricsPart;
  /** Asked at start which llm skills have no provider. */
  llm: LlmBody;
  /** Dispatching and sending webhook deliveries, unless WORKER_WEBHOOKS is off. */
  webhooks?: WebhookParts;
}

/**
 * Loads the skills and wires every part of a worker process, each built by its folder's `build…`:
 * the composition root, nothing more (nothing waits for Redis, which may not answer yet).
 */
export async function buildWorker(context: WorkerContext): Promise<WorkerParts> {
  const schemas = new SkillSchemas();
  const skills = await buildSkills(context.config, schemas);
  const shared = buildShared(context, schemas);
  const { config, registry, store } = shared;
  const composites = buildComposites(shared);
  const { waiting } = composites;
  const sandbox = await buildSandbox(shared, skills);
  const composite = {
    store,
    waiting,
    steps: new StepLauncher({
      resolver: new SkillResolver(registry, () => true, config.SKILL_CACHE_MS),
      engine: engineOf(shared),
      schemas,
      store,
    }),
  };
  const bodies = buildBodies(shared, { sandbox, composite });
  const flow = buildFlow(shared);
  const attempt = buildAttempt(shared, { bodies, flow });
  const { hosted } = skills;
  return {
    shared,
    skills,
    sandbox,
    attempt,
    consumers: buildConsumers(shared, { attempt, flow, hosted, wakeups: composites.wakeups }),
    composites,
    upkeep: buildSkillUpkeep(shared, skills, sandbox),
    metrics: buildMetrics(shared, hosted),
    llm: bodies.llm,
    ...(config.WORKER_WEBHOOKS ? { webhooks: buildWebhooks(shared) } : {}),
  };
}
