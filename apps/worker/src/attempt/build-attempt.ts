import type { Bodies } from '../bodies/build-bodies';
import type { FlowPart } from '../flow/build-flow';
import type { WorkerShared } from '../worker-shared';
import { AttemptRunner } from './attempt-runner';
import { Cancellations } from './cancellations';
import { PendingOutcomes } from './pending-outcomes';

/** What runs an attempt, and what its consumer and the service hold of it. */
export interface AttemptPart {
  runner: AttemptRunner;
  /** The outcomes the runner decided, which its consumer writes just before BullMQ ends the job. */
  outcomes: PendingOutcomes;
  /** The cancel requests this worker hears, on a subscriber connection of its own (started by the service). */
  cancellations: Cancellations;
}

export function buildAttempt(
  shared: WorkerShared,
  { bodies, flow }: { bodies: Bodies; flow: FlowPart },
): AttemptPart {
  const { config, logger, metrics, redis, keys, store, engine, schemas, stream } = shared;
  const outcomes = new PendingOutcomes((call) => engine.outcomes.send(call), shared.liveness.intervalMs);
  const cancellations = new Cancellations({
    subscriber: redis.duplicate(),
    channel: keys.canceled(),
    logger,
  });
  const runner = new AttemptRunner({
    outcomes,
    cancellations,
    store,
    engine,
    schemas,
    logger,
    retryBackoffMs: config.RETRY_BACKOFF_MS,
    maxOutputBytes: config.MAX_OUTPUT_BYTES,
    stream,
    workerId: config.WORKER_ID,
    progressIntervalMs: config.PROGRESS_INTERVAL_MS,
    bodies,
    metrics,
    flow: flow.control,
    dailySpend: shared.dailySpend,
  });
  return { runner, outcomes, cancellations };
}
