import { ExecutionEventsQuery, ExecutionListQuery, SchemaValidator } from '@skillrun/core';
import type { Router } from 'express';
import type { CallerStreams } from './caller-streams';
import type { ExecutionHistory } from './execution-history';
import type { ExecutionReplayer } from '../invocations/execution-replayer';
import { measuredRouter } from '../metrics/measured-router';
import { requireJson } from '../http/require-json';

const listQuery = new SchemaValidator(ExecutionListQuery, 'query', { coerceTypes: true });

const replayFilter = new SchemaValidator(ExecutionListQuery, 'replay filter');

const eventsQuery = new SchemaValidator(ExecutionEventsQuery, 'query');

/**
 * Everything under /executions, mounted there: the history of executions across skills, replaying
 * what a filter finds in it, and a caller's executions live.
 */
export function executionRoutes(
  history: ExecutionHistory,
  replayer: ExecutionReplayer,
  streams: CallerStreams,
): Router {
  const router = measuredRouter();
  router.get('', async (req, res) => {
    const query = listQuery.parse({ ...req.query });
    res.setHeader('Cache-Control', 'no-store');
    res.json(await history.list(query, req.headers));
  });
  router.post('/replay', requireJson(), async (req, res) => {
    const filter = replayFilter.parse(req.body);
    res.json(await replayer.replayAll(filter, req.headers, req.ip ?? req.socket.remoteAddress ?? 'unknown'));
  });
  router.get('/events', async (req, res) => {
    const { caller_id } = eventsQuery.parse({ ...req.query });
    await streams.stream(req, res, caller_id);
  });
  return router;
}
