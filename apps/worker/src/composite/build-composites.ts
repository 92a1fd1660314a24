import type { WorkerShared } from '../worker-shared';
import { DeadlineSweeper } from './deadline-sweeper';
import { StepWakeups } from './step-wakeups';
import { WaitingComposites } from './waiting-composites';

/** What keeps composites going between their runs (their steps are launched by a StepLauncher). */
export interface CompositesPart {
  /** The composites waiting for a step, by deadline: the sweeper times out those past it. */
  waiting: WaitingComposites;
  /** Wakes the composite of a step launched apart from it when the step ends. */
  wakeups: StepWakeups;
  sweeper: DeadlineSweeper;
}

/** The composites' waits, wakeups and deadline sweeper, over the queue connection. */
export function buildComposites({
  config,
  logger,
  metrics,
  redis,
  keys,
  store,
  engine,
  queues,
}: WorkerShared): CompositesPart {
  const waiting = new WaitingComposites(redis, keys);
  return {
    waiting,
    wakeups: new StepWakeups({ store, queues }),
    sweeper: new DeadlineSweeper({
      waiting,
      store,
      engine,
      queues,
      logger,
      intervalMs: config.COMPOSITE_SWEEP_INTERVAL_MS,
      metrics,
    }),
  };
}
