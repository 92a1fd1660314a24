import { SkillError } from '@skillrun/core';
import { coalesceWrites, remoteQueueName, skillQueueName } from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import { type Job, UnrecoverableError } from 'bullmq';
import type { AttemptPart } from '../attempt/build-attempt';
import type { StepWakeups } from '../composite/step-wakeups';
import type { FlowPart } from '../flow/build-flow';
import type { SlotLane } from '../flow/execution-slots';
import { RemoteSkills } from '../remote/remote-skills';
import type { HostedSkills } from '../skills/hosted-skills';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { WorkerShared } from '../worker-shared';
import { QueueConsumer, type StartGate } from './queue-consumer';
import { logQueueErrors } from './queue-errors';
import { recordStalledFailure } from './stalled-failure';

/** What the consumers are given: the attempt they run, and the limits they take jobs within. */
export interface ConsumersNeeds {
  attempt: AttemptPart;
  flow: FlowPart;
  hosted: HostedSkills;
  wakeups: StepWakeups;
}

/**
 * A consumer per queue of each hosted skill (and the remote queues, with WORKER_REMOTE), all
 * sharing the process's slots.
 */
export function buildConsumers(shared: WorkerShared, needs: ConsumersNeeds): QueueConsumer[] {
  const { config, registry } = shared;
  const { hosted, flow, wakeups } = needs;
  return [
    ...hosted.all.flatMap((skill) => {
      const { name, version } = skill.definition;
      const definition = () => hosted.current(name, version).definition;
      return consume(
        shared,
        needs,
        (lane) => skillQueueName(name, version, lane),
        async () => hosted.current(name, version),
        {
          // A job's end freed its concurrency slots (unless it is retried): parked executions get
          // them; a step launched apart from its composite wakes it.
          released: async (job) => {
            await flow.control.released(job, definition());
            await wakeups.ended(job);
          },
          starts: flow.starts(definition),
        },
      );
    }),
    ...(config.WORKER_REMOTE
      ? consumeRemote(shared, needs, new RemoteSkills(registry, config.SKILL_CACHE_MS))
      : []),
  ];
}

/** A hosted skill's flow control, as its consumers see it. */
interface FlowOptions {
  /** Told of each job BullMQ ended (its concurrency slots may be free). */
  released?: (job: Job) => Promise<void>;
  /** Its rate limit's starts. */
  starts?: StartGate;
}

/**
 * A consumer of each of a skill's queues (or the remote queues) on each hash tag (ShardMap.tags:
 * the prefix, then each active vshard's), high priority first, all sharing the process's slots;
 * `skillOf` gives the skill a job is an execution of. An attempt's outcome is written as its run
 * ends, before its job is.
 */
function consume(
  { config, logger, metrics, running, endings, liveness, store, engine, keys }: WorkerShared,
  { attempt: { runner, outcomes }, flow: { slots } }: ConsumersNeeds,
  queueOf: (lane: SlotLane) => string,
  skillOf: (job: Job) => Promise<LoadedSkill>,
  { released, starts }: FlowOptions = {},
): QueueConsumer[] {
  const run = async (job: Job, token: string, start?: string) =>
    runner.run(job, token, await skillOf(job), start);
  const lanes = keys.shards
    .tags()
    .flatMap((tag) => (['high', 'normal'] as const).map((lane) => ({ tag, lane })));
  const connection = endings;
  return lanes.map(({ tag, lane }) => {
    const consumer = new QueueConsumer({
      queue: queueOf(lane),
      lane,
      slots,
      handler: (job, token, start) => running.track(job, token, () => run(job, token, start)),
      ...(starts ? { starts } : {}),
      // The outcomes and the consumers share one connection (WorkerShared's `endings`): the outcome
      // is run first, and leaves in one write with BullMQ's end of the job (and those of the turn's
      // other jobs).
      settle: (job) => {
        coalesceWrites(connection);
        return outcomes.write(String(job.id));
      },
      settleAgain: (job) => {
        coalesceWrites(connection);
        return outcomes.writeAgain(String(job.id));
      },
      unsettle: (job) => outcomes.forget(String(job.id)),
      givenUp: (job) =>
        void recordStalledFailure(job, { store, engine, metrics, logger, retryDelayMs: liveness.intervalMs })
          .then(() => released?.(job))
          .catch(() => {}),
      ...(released ? { ended: (job: Job) => void released(job).catch(() => {}) } : {}),
      worker: {
        connection,
        prefix: tag,
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.STALLED_CHECK_INTERVAL_MS,
        // After a fetch lost with its connection: again once the connection can be back.
        runRetryDelay: liveness.intervalMs,
        // BullMQ records it on the job (processedBy) when it takes it: status names the worker.
        name: config.WORKER_ID,
        // The attempt's span, a child of the invocation's (see queueTelemetry).
        telemetry: queueTelemetry(),
      },
    });
    logQueueErrors(consumer.worker, { redis: connection, liveness }, logger);
    return consumer;
  });
}

/**
 * The remote queues: executions of skills registered from elsewhere, each run with its version's
 * descriptor. One whose version the registry no longer has fails at once with SKILL_NOT_FOUND.
 */
function consumeRemote(shared: WorkerShared, needs: ConsumersNeeds, remote: RemoteSkills): QueueConsumer[] {
  return consume(
    shared,
    needs,
    (lane) => remoteQueueName(lane),
    async (job) => {
      const data = job.data as { execution_id?: unknown; skill_id?: unknown; skill_version?: unknown };
      const skill = await remote.get(String(data.skill_id), String(data.skill_version));
      if (skill) return skill;
      const error = new SkillError(
        'SKILL_NOT_FOUND',
        `${String(data.skill_id)}@${String(data.skill_version)} is no longer registered`,
        { recoverable: false },
      );
      if (typeof data.execution_id === 'string') {
        await shared.engine.transitions.fail(data.execution_id, 'failed', error.toBody()).catch(() => {});
      }
      throw new UnrecoverableError(error.message);
    },
  );
}
