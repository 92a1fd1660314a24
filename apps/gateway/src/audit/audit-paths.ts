import { AuditListQuery } from '@skillrun/core';
import { errors, ok, queryParameters } from '../http/openapi-parts';

/** Ours: the audit log, under /audit. */
export const auditPaths = {
  '/audit': {
    get: {
      operationId: 'listAuditRecords',
      summary: 'The audit log of administrative acts, newest first (admin) (ours)',
      description:
        'One record per administrative act (keys created or revoked, skills published, deprecated or paused, credentials set, bulk cancels, replays, schedule changes): who, when, what, from which address, and the outcome, refusals included. Written before the act: an act whose record cannot be written is refused with 503 and not done. Kept AUDIT_RETENTION_DAYS. Never holds a secret.',
      tags: ['admin'],
      parameters: queryParameters(AuditListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'AuditPage'),
        ...errors('400', '401', '403', '503'),
      },
    },
  },
};
