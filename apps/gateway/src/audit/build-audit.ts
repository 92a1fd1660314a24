import { AuditLog } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { auditPaths } from './audit-paths';
import { auditRecorder } from './audit-recorder';
import { auditRoutes } from './audit-routes';
import { AUDITED_ACTS } from './audited-acts';

const DAY_MS = 86_400_000;

/** The audit log: every administrative act recorded as it is asked (ahead of the routes), read at GET /audit. */
export function buildAudit(shared: GatewayShared): Slice {
  const { redis, keys, identities, logger, config } = shared;
  const log = new AuditLog({ redis, keys, retentionMs: config.AUDIT_RETENTION_DAYS * DAY_MS });
  return {
    before: [{ path: '/', router: auditRecorder({ log, identities, logger }, AUDITED_ACTS) }],
    routes: [{ path: '/audit', router: auditRoutes(log, identities) }],
    paths: auditPaths,
  };
}
