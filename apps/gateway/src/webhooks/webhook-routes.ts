import { DeliveryListQuery, NewWebhook, SchemaValidator } from '@skillrun/core';
import type { Request, Router } from 'express';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';
import type { WebhookDesk } from './webhook-desk';

const newWebhook = new SchemaValidator(NewWebhook, 'webhook');
const listQuery = new SchemaValidator(DeliveryListQuery, 'query', { coerceTypes: true });

type WebhookRequest = Request<{ webhookId: string }>;

/** Everything under /webhooks, mounted there: standing webhooks, and every webhook's deliveries. */
export function webhookRoutes(desk: WebhookDesk): Router {
  const router = measuredRouter();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.post('', requireJson(), async (req, res) => {
    const created = await desk.create(newWebhook.parse(req.body), req.headers);
    res.status(201).location(`/webhooks/${created.id}`).json(created);
  });
  router.get('', async (req, res) => {
    res.json(await desk.list(req.headers));
  });
  router.get('/:webhookId', async (req: WebhookRequest, res) => {
    res.json(await desk.get(req.params.webhookId, req.headers));
  });
  router.delete('/:webhookId', async (req: WebhookRequest, res) => {
    await desk.remove(req.params.webhookId, req.headers);
    res.status(204).end();
  });
  router.get('/:webhookId/deliveries', async (req: WebhookRequest, res) => {
    const query = listQuery.parse({ ...req.query });
    res.json(await desk.deliveries(req.params.webhookId, query, req.headers));
  });
  router.post(
    '/:webhookId/deliveries/:deliveryId/redeliver',
    async (req: Request<{ webhookId: string; deliveryId: string }>, res) => {
      res.status(202).json(await desk.redeliver(req.params.webhookId, req.params.deliveryId, req.headers));
    },
  );
  return router;
}
