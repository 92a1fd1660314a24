import { AuditListQuery, SchemaValidator } from '@skillrun/core';
import type { AuditLog } from '@skillrun/core/data';
import type { Router } from 'express';
import type { Identities } from '../auth/identities';
import { requireAdmin } from '../auth/require-admin';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import { measuredRouter } from '../metrics/measured-router';

const listQuery = new SchemaValidator(AuditListQuery, 'query', { coerceTypes: true });

/** GET /audit, mounted there: the audit log, newest first, for admins only. */
export function auditRoutes(log: AuditLog, identities: Identities): Router {
  const router = measuredRouter();
  router.get('', requireAdmin(identities, 'The audit log'), async (req, res) => {
    const { cursor, limit, since, until, ...filters } = listQuery.parse({ ...req.query });
    const page = await log.list(
      {
        ...filters,
        ...(since === undefined ? {} : { since: Date.parse(since) }),
        ...(until === undefined ? {} : { until: Date.parse(until) }),
        ...(cursor === undefined ? {} : { after: decodeCursor(cursor, afterOf) }),
      },
      limit,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      records: page.records,
      next_cursor: page.next === null ? null : encodeCursor({ after: page.next }),
    });
  });
  return router;
}

/** A cursor's audit id, as the log made it. */
function afterOf(decoded: Record<string, unknown>): string | undefined {
  const { after } = decoded;
  return typeof after === 'string' && /^\d{13}-[0-9a-f]{12}$/.test(after) ? after : undefined;
}
