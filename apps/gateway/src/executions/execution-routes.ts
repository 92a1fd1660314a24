import { BulkCancelRequest, ExecutionEventsQuery, ExecutionListQuery, SchemaValidator } from '@skillrun/core';
import type { Router } from 'express';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';
import type { BulkCanceler } from './bulk-canceler';
import type { CallerStreams } from './caller-streams';
import type { ExecutionHistory } from './execution-history';
import { withRepeatedTags } from './repeated-tags';

const listQuery = new SchemaValidator(ExecutionListQuery, 'query', { coerceTypes: true });

const eventsQuery = new SchemaValidator(ExecutionEventsQuery, 'query');

const cancelFilter = new SchemaValidator(BulkCancelRequest, 'cancel filter');

/**
 * Under /executions, mounted there: the history of executions across skills, canceling what a
 * filter of it finds, and a caller's executions live (replaying what a filter finds is the
 * invocations' router's).
 */
export function executionRoutes(
  history: ExecutionHistory,
  bulk: BulkCanceler,
  streams: CallerStreams,
): Router {
  const router = measuredRouter();
  router.get('', async (req, res) => {
    const query = listQuery.parse(withRepeatedTags({ ...req.query }));
    res.setHeader('Cache-Control', 'no-store');
    res.json(await history.list(query, req.headers));
  });
  router.post('/cancel', requireJson(), async (req, res) => {
    const request = cancelFilter.parse(req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await bulk.cancel(request, req.headers));
  });
  router.get('/events', async (req, res) => {
    const { caller_id } = eventsQuery.parse({ ...req.query });
    await streams.stream(req, res, caller_id);
  });
  return router;
}
