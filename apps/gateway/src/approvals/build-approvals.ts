import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import type { TasksSlice } from '../tasks/build-tasks';
import { ApprovalDesk } from './approval-desk';
import { ApprovalLinks } from './approval-links';
import { approvalPaths } from './approval-paths';
import { approvalRoutes } from './approval-routes';

/** The approvals slice, and the desk MCP and A2A decide approvals with. */
export interface ApprovalsSlice extends Slice {
  desk: ApprovalDesk;
}

/**
 * The approvals executions wait for: listed for their approvers, approved or rejected once, and
 * their one-time links (signed with the tasks' secret, for this use alone).
 */
export function buildApprovals(shared: GatewayShared, { tasks }: { tasks: TasksSlice }): ApprovalsSlice {
  const { config } = shared;
  const desk = new ApprovalDesk({
    store: shared.store,
    engine: shared.engine,
    registry: shared.registry,
    identities: shared.identities,
    links: new ApprovalLinks({ secret: tasks.secret, ttlSeconds: config.TASK_LINK_TTL_SECONDS }),
    baseUrl: config.PUBLIC_BASE_URL,
  });
  return { routes: [{ path: '/approvals', router: approvalRoutes(desk) }], paths: approvalPaths, desk };
}
