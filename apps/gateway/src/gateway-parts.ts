import type { Logger } from '@skillrun/core';
import type { Express } from 'express';
import { buildAdmin } from './admin/build-admin';
import { buildAgents } from './agents/build-agents';
import { buildApprovals } from './approvals/build-approvals';
import { buildAudit } from './audit/build-audit';
import { buildMe } from './auth/build-me';
import { buildBatches } from './batches/build-batches';
import { type GatewayConfig, trustProxyOf } from './config';
import { buildConsole } from './console/build-console';
import { buildExecutions } from './executions/build-executions';
import { buildShared, type GatewayShared } from './gateway-shared';
import { createApp } from './http/app';
import { buildMeta } from './http/build-meta';
import type { Slice } from './http/slice';
import { buildInvocations } from './invocations/build-invocations';
import { buildSchedules } from './schedules/build-schedules';
import { buildSkills } from './skills/build-skills';
import { buildTasks } from './tasks/build-tasks';
import { buildWebhooks } from './webhooks/build-webhooks';

/** What a gateway process is made of, wired and not listening yet. */
export interface GatewayParts {
  /** The HTTP API. */
  app: Express;
  shared: GatewayShared;
  /** Closed at shutdown, before the server. */
  slices: readonly Slice[];
}

/**
 * The gateway's slices, one per resource, in the order the app mounts them and the OpenAPI
 * document lists their paths: the invocations first (POST invoke is the hot path, and Express tries
 * each route mounted before it), then the rest under /skills. A new resource is a folder with its
 * `build…` and a line here.
 */
export function gatewaySlices(shared: GatewayShared): Slice[] {
  const skills = buildSkills(shared);
  const executions = buildExecutions(shared);
  const invocations = buildInvocations(shared, executions);
  const tasks = buildTasks(shared);
  const approvals = buildApprovals(shared, { tasks });
  return [
    invocations,
    skills,
    executions,
    buildBatches(shared, { invocations, executions }),
    tasks,
    approvals,
    buildWebhooks(shared),
    buildSchedules(shared, invocations),
    buildAdmin(shared),
    buildAudit(shared),
    buildConsole(shared),
    buildAgents(shared, { skills, invocations, executions, tasks, approvals }),
    buildMe(shared),
    buildMeta(shared),
  ];
}

/** Wires a gateway from its configuration, and only wires. */
export function buildGateway(config: GatewayConfig, logger: Logger): GatewayParts {
  const shared = buildShared(config, logger);
  const slices = gatewaySlices(shared);
  const app = createApp(
    {
      metrics: shared.metrics,
      logger,
      baseUrl: config.PUBLIC_BASE_URL,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      maxJsonDepth: config.MAX_JSON_DEPTH,
      ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: trustProxyOf(config.TRUST_PROXY) }),
    },
    slices,
  );
  return { app, shared, slices };
}
