import type { Request, Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';
import type { RequestHeaders } from './request-headers';

type ExecutionRequest = Request<{ executionId: string }>;
type LinkRequest = Request<{ token: string }>;

/** What a desk of executions waiting for a person answers alike, whatever the person does there. */
export interface LinkedDesk<Query> {
  list(query: Query, headers: RequestHeaders): Promise<unknown>;
  get(executionId: string, headers: RequestHeaders): Promise<unknown>;
  getByLink(token: string): Promise<unknown>;
  link(executionId: string, headers: RequestHeaders): Promise<unknown>;
}

/**
 * The router of a desk of executions waiting for a person (tasks to hand in, approvals to decide),
 * to mount under its prefix, with the routes every such desk has: its list (the query parsed by
 * `listQuery`), one by id as the caller's credentials allow or by its one-time link, and issuing
 * that link. None of its answers is cached. The desk's own acts are added to the router.
 */
export function linkedDeskRoutes<Query>(
  desk: LinkedDesk<Query>,
  listQuery: { parse(query: unknown): Query },
): Router {
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
  router.get('/:executionId', async (req: ExecutionRequest, res) => {
    res.json(await desk.get(req.params.executionId, req.headers));
  });
  router.post('/:executionId/link', async (req: ExecutionRequest, res) => {
    res.status(201).json(await desk.link(req.params.executionId, req.headers));
  });
  return router;
}
