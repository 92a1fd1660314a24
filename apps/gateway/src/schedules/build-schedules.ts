import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import type { InvocationsSlice } from '../invocations/build-invocations';
import { ScheduleConsumer } from './schedule-consumer';
import { ScheduleCredentials } from './schedule-credential';
import { ScheduleDesk } from './schedule-desk';
import { schedulePaths } from './schedule-paths';
import { scheduleRoutes } from './schedule-routes';
import { ScheduleRunner } from './schedule-runner';
import { ScheduleStore } from './schedule-store';
import { ScheduleTimers } from './schedule-timers';

/**
 * Schedules: the /schedules resource, and the consumer of their due times, started with the gateway
 * and closed with it. Each run is an invocation, through the invocations slice.
 */
export function buildSchedules(shared: GatewayShared, invocations: InvocationsSlice): Slice {
  const { config, redis, keys, logger } = shared;
  const store = new ScheduleStore(redis, keys);
  const credentials = new ScheduleCredentials(shared.apiKeys, config.ADMIN_API_KEY !== undefined);
  const desk = new ScheduleDesk({
    store,
    timers: new ScheduleTimers(shared.queues.schedules()),
    invocations: invocations.service,
    credentials,
    executions: shared.store,
    identities: shared.identities,
    maxPerCaller: config.MAX_SCHEDULES_PER_CALLER,
    engine: shared.engine,
  });
  const consumer = new ScheduleConsumer({
    runner: new ScheduleRunner({
      store,
      executions: shared.store,
      credentials,
      invocations: invocations.service,
      metrics: shared.metrics,
      logger,
      shards: keys.shards,
      engine: shared.engine,
    }),
    target: config.redisTarget,
    liveness: shared.liveness,
    prefix: config.KEY_PREFIX,
    logger,
  });
  return {
    routes: [{ path: '/schedules', router: scheduleRoutes(desk) }],
    paths: schedulePaths,
    start: () => consumer.start(),
    close: () => consumer.close(),
  };
}
