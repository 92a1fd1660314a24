import { TaskStore } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { TaskDesk } from './task-desk';
import { TaskLinks } from './task-links';
import { taskPaths } from './task-paths';
import { taskRoutes } from './task-routes';

/** The tasks of `task` skills: listed for who may take them, claimed, handed in, declined, and their one-time links. */
export function buildTasks(shared: GatewayShared): Slice {
  const { config, redis, keys } = shared;
  const desk = new TaskDesk({
    store: shared.store,
    tasks: new TaskStore(redis, keys),
    registry: shared.registry,
    queues: shared.queues,
    schemas: shared.schemas,
    identities: shared.identities,
    links: new TaskLinks({
      redis,
      keys,
      ttlSeconds: config.TASK_LINK_TTL_SECONDS,
      ...(config.TASK_LINK_SECRET === undefined ? {} : { secret: config.TASK_LINK_SECRET }),
    }),
    baseUrl: config.PUBLIC_BASE_URL,
  });
  return { routes: [{ path: '/tasks', router: taskRoutes(desk) }], paths: taskPaths };
}
