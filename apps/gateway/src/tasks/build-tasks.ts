import { TaskStore } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { TaskDesk } from './task-desk';
import { TaskLinks } from './task-links';
import { taskPaths } from './task-paths';
import { taskRoutes } from './task-routes';
import { TaskSecret } from './task-secret';

/** The tasks slice, and what MCP hands tasks in with: the desk, and the secret hand-ins are signed with. */
export interface TasksSlice extends Slice {
  desk: TaskDesk;
  secret: TaskSecret;
}

/** The tasks of `task` skills: listed for who may take them, claimed, handed in, declined, and their one-time links. */
export function buildTasks(shared: GatewayShared): TasksSlice {
  const { config, redis, keys } = shared;
  const secret = new TaskSecret({
    redis,
    keys,
    ...(config.TASK_LINK_SECRET === undefined ? {} : { secret: config.TASK_LINK_SECRET }),
  });
  const desk = new TaskDesk({
    store: shared.store,
    tasks: new TaskStore(redis, keys),
    engine: shared.engine,
    registry: shared.registry,
    schemas: shared.schemas,
    identities: shared.identities,
    links: new TaskLinks({ secret, ttlSeconds: config.TASK_LINK_TTL_SECONDS }),
    baseUrl: config.PUBLIC_BASE_URL,
  });
  return { routes: [{ path: '/tasks', router: taskRoutes(desk) }], paths: taskPaths, desk, secret };
}
