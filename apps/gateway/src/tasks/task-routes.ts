import { SchemaValidator, TaskCompletion, TaskDecline, TaskListQuery } from '@skillrun/core';
import type { Request, Router } from 'express';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';
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
  const router = measuredRouter();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.get('', async (req, res) => {
    res.json(await desk.list(listQuery.parse({ ...req.query }), req.headers));
  });
  router.get('/link/:token', async (req: LinkRequest, res) => {
    res.json(await desk.getByLink(req.params.token));
  });
  router.post('/link/:token/complete', requireJson(), async (req: LinkRequest, res) => {
    const { output } = completion.parse(req.body);
    res.json(await desk.completeByLink(req.params.token, output));
  });
  router.get('/:executionId', async (req: TaskRequest, res) => {
    res.json(await desk.get(req.params.executionId, req.headers));
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
  router.post('/:executionId/link', async (req: TaskRequest, res) => {
    res.status(201).json(await desk.link(req.params.executionId, req.headers));
  });
  return router;
}
