import { BatchStore } from '@skillrun/core/data';
import type { ExecutionsSlice } from '../executions/build-executions';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import type { InvocationsSlice } from '../invocations/build-invocations';
import { BatchDesk } from './batch-desk';
import { batchPaths } from './batch-paths';
import { batchRoutes } from './batch-routes';

/** Batches: many invocations through the invocations' service at once, read and canceled through the executions'. */
export function buildBatches(
  shared: GatewayShared,
  { invocations, executions }: { invocations: InvocationsSlice; executions: ExecutionsSlice },
): Slice {
  const { config, redis, keys, store } = shared;
  const desk = new BatchDesk({
    invocations: invocations.service,
    batches: new BatchStore(redis, keys, config.EXECUTION_TTL_SECONDS),
    store,
    identities: shared.identities,
    reader: executions.reader,
    canceler: executions.canceler,
    metrics: shared.metrics,
    logger: shared.logger,
    maxWaitSeconds: config.MAX_WAIT_SECONDS,
    engine: shared.engine,
  });
  return {
    routes: [{ path: '/batches', router: batchRoutes(desk, config.PUBLIC_BASE_URL) }],
    paths: batchPaths,
  };
}
