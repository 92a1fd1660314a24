import { ExecutionIdentity } from '../auth/execution-identity';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { BulkCanceler } from './bulk-canceler';
import { CallerStreams } from './caller-streams';
import { ChangeFeed } from './change-feed';
import { ExecutionCanceler } from './execution-canceler';
import { ExecutionEvents } from './execution-events';
import { ExecutionHistory } from './execution-history';
import { executionPaths } from './execution-paths';
import { ExecutionReader } from './execution-reader';
import { executionRoutes } from './execution-routes';
import { ExecutionStreams } from './execution-stream';
import { skillExecutionRoutes } from './skill-execution-routes';
import { StreamQuota } from './stream-quota';

/** The executions slice, and what other slices read executions with. */
export interface ExecutionsSlice extends Slice {
  reader: ExecutionReader;
  /** An execution's status changes and streamed chunks, in order, for any surface that follows it live. */
  events: ExecutionEvents;
  canceler: ExecutionCanceler;
  history: ExecutionHistory;
}

/**
 * Executions once started: read (and waited for), canceled (one, or what a filter finds), streamed,
 * listed, and a caller's followed live; the notifications stream is closed with the slice.
 */
export function buildExecutions(shared: GatewayShared): ExecutionsSlice {
  const { config, redis, keys, store, identities, registry, watcher, metrics } = shared;
  const identity = new ExecutionIdentity({
    store,
    identities,
    registry,
    defaultAuth: shared.descriptors.defaults.auth,
  });
  const { engine } = shared;
  const events = new ExecutionEvents(store, engine);
  const reader = new ExecutionReader({
    store,
    watcher,
    identity,
    events,
    maxWaitSeconds: config.MAX_WAIT_SECONDS,
    engine,
  });
  const canceler = new ExecutionCanceler({
    store,
    engine,
    identity,
    metrics,
  });
  const history = new ExecutionHistory({
    store,
    engine,
    identities,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
  });
  const quota = new StreamQuota(config.MAX_STREAMS_PER_CALLER);
  const heartbeatMs = config.STREAM_HEARTBEAT_SECONDS * 1000;
  const feed = new ChangeFeed({ open: () => redis.duplicate(), redis, keys });
  const callerStreams = new CallerStreams({
    identities,
    store,
    feed,
    followers: shared.followers,
    notified: shared.notified,
    quota,
    heartbeatMs,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
  });
  const streams = new ExecutionStreams({
    identity,
    events,
    watcher,
    quota,
    heartbeatMs,
  });
  return {
    routes: [
      { path: '/skills', router: skillExecutionRoutes({ executions: reader, canceler, streams }) },
      {
        path: '/executions',
        router: executionRoutes(history, new BulkCanceler(history, canceler), callerStreams),
      },
    ],
    paths: executionPaths,
    close: () => feed.close(),
    reader,
    events,
    canceler,
    history,
  };
}
