import { DailySpend, InFlightSlots, isVisible, SkillResolver } from '@skillrun/core/data';
import type { ExecutionsSlice } from '../executions/build-executions';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { CallerLimits } from '../limits/caller-limits';
import { ExecutionReplayer } from './execution-replayer';
import { FairShare } from './fair-share';
import { invocationPaths } from './invocation-paths';
import { invocationRoutes, replayAllRoutes } from './invocation-routes';
import { InvocationService } from './invocation-service';
import { ReplayFork } from './replay-fork';

/** The invocations slice, and the service agents invoke skills through. */
export interface InvocationsSlice extends Slice {
  service: InvocationService;
}

/**
 * What starts executions: invoking a skill (resolved, authorized, limited, launched), and replaying
 * executions; an invocation that waits reads its end through the executions slice.
 */
export function buildInvocations(shared: GatewayShared, executions: ExecutionsSlice): InvocationsSlice {
  const { config, redis, keys, store, registry, identities } = shared;
  const resolver = new SkillResolver(
    registry,
    (entry) => isVisible(entry, config.DEFAULT_SKILL_ACCESS),
    config.SKILL_CACHE_MS,
  );
  const service = new InvocationService({
    resolver,
    engine: shared.engine,
    schemas: shared.schemas,
    access: shared.access,
    limits: new CallerLimits(
      config.limits,
      redis,
      keys,
      new InFlightSlots(redis, keys),
      new DailySpend(redis, keys),
    ),
    idempotency: new IdempotencyKeys(redis, keys, { ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS }),
    fairShare: new FairShare({
      burst: config.FAIR_SHARE_BURST,
      windowMs: config.FAIR_SHARE_WINDOW_SECONDS * 1000,
    }),
    identities,
    defaultAuth: shared.descriptors.defaults.auth,
    webhooks: shared.webhooks,
    notified: shared.notified,
    webhookUrls: shared.webhookUrls,
    watcher: shared.watcher,
    maxDelayMs: config.MAX_DELAY_MS,
  });
  const replayer = new ExecutionReplayer({
    store,
    identities,
    invocations: service,
    history: executions.history,
    fork: new ReplayFork({ store, resolver, schemas: shared.schemas }),
  });
  const baseUrl = config.PUBLIC_BASE_URL;
  return {
    routes: [
      {
        path: '/skills',
        router: invocationRoutes({ invocations: service, executions: executions.reader, replayer, baseUrl }),
      },
      { path: '/executions', router: replayAllRoutes(replayer) },
    ],
    paths: invocationPaths,
    service,
  };
}
