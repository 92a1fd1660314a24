import { SchemaValidator, TaskCompletion, TaskDecline, TaskListQuery } from '@skillrun/core';
import type { Request, Router } from 'express';
import { linkedDeskRoutes } from '../http/linked-desk-routes';
import { requireJson } from '../http/require-json';
import type { TaskDesk } from './task-desk';

const listQuery = new SchemaValidator(TaskListQuery, 'query', { coerceTypes: true });
const completion = new SchemaValidator(TaskCompletion, 'completion');
const refusal = new SchemaValidator(TaskDecline, 'decline');

type TaskRequest = Request<{ executionId: string }>;
type LinkRequest = Request<{ token: string }>;

/**
 * Everything under /tasks, mounted there: the open tasks of `task` skills for the callers who may
 * take them, claiming, handing in and declining one, and its one-time links.
 */
export function taskRoutes(desk: TaskDesk): Router {
  const router = linkedDeskRoutes(desk, listQuery);
  router.post('/link/:token/complete', requireJson(), async (req: LinkRequest, res) => {
    const { output } = completion.parse(req.body);
    res.json(await desk.completeByLink(req.params.token, output));
  });
  router.post('/:executionId/claim', async (req: TaskRequest, res) => {
    res.json(await desk.claim(req.params.executionId, req.headers));
  });
  router.post('/:executionId/complete', requireJson(), async (req: TaskRequest, res) => {
    const { output } = completion.parse(req.body);
    res.json(await desk.complete(req.params.executionId, output, req.headers));
  });
  router.post('/:executionId/decline', requireJson({ optional: true }), async (req: TaskRequest, res) => {
    const { reason } = refusal.parse(req.body ?? {});
    res.json(await desk.decline(req.params.executionId, reason ?? '', req.headers));
  });
  return router;
}
