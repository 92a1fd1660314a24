import {
  NewSchedule,
  ScheduleBackfill,
  ScheduleChange,
  ScheduleListQuery,
  SchemaValidator,
} from '@skillrun/core';
import type { Request, Router } from 'express';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';
import type { ScheduleDesk } from './schedule-desk';

const newSchedule = new SchemaValidator(NewSchedule, 'schedule');
const scheduleChange = new SchemaValidator(ScheduleChange, 'schedule change');
const listQuery = new SchemaValidator(ScheduleListQuery, 'query', { coerceTypes: true });
const backfill = new SchemaValidator(ScheduleBackfill, 'backfill');

type ScheduleRequest = Request<{ scheduleId: string }>;

/** Everything under /schedules, mounted there. */
export function scheduleRoutes(desk: ScheduleDesk): Router {
  const router = measuredRouter();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.post('', requireJson(), async (req, res) => {
    const created = await desk.create(newSchedule.parse(req.body), req.headers, addressOf(req));
    res.status(201).location(`/schedules/${created.schedule_id}`).json(created);
  });
  router.get('', async (req, res) => {
    res.json(await desk.list(listQuery.parse({ ...req.query }), req.headers));
  });
  router.get('/:scheduleId', async (req: ScheduleRequest, res) => {
    res.json(await desk.get(req.params.scheduleId, req.headers));
  });
  router.patch('/:scheduleId', requireJson(), async (req: ScheduleRequest, res) => {
    const change = scheduleChange.parse(req.body);
    res.json(await desk.update(req.params.scheduleId, change, req.headers, addressOf(req)));
  });
  router.post('/:scheduleId/backfill', requireJson(), async (req: ScheduleRequest, res) => {
    res.status(202).json(await desk.backfill(req.params.scheduleId, backfill.parse(req.body), req.headers));
  });
  router.delete('/:scheduleId', async (req: ScheduleRequest, res) => {
    await desk.remove(req.params.scheduleId, req.headers);
    res.status(204).end();
  });
  return router;
}

function addressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
