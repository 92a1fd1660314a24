import { SkillError } from '@skillrun/core';
import type { QueueRegistry, SkillRegistry } from '@skillrun/core/data';
import type { Queue } from 'bullmq';
import { type Express, type Request, type RequestHandler, Router } from 'express';
import { assertRole } from '../auth/assert-role';
import type { Identities } from '../auth/identities';
import { authRequired } from '../auth/skill-access';
import { htmlPageHeaders } from '../http/html-page-headers';
import { lazyRouter } from '../http/lazy-router';
import { headerOf, type RequestHeaders } from '../http/request-headers';

/** Where the app mounts the dashboard (bull-board writes it into the page's links). */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';
const IDS_PER_READ = 500;

export interface QueueDashboardSettings {
  registry: SkillRegistry;
  queues: QueueRegistry;
  /** QUEUE_DASHBOARD_ACTIONS: operators may retry, clean, pause…; otherwise the dashboard only reads. */
  actions: boolean;
}

/**
 * The operators' job dashboard (bull-board) at /admin/queues, over every hosted skill version's
 * queue, listed again on each request so that versions hosted later appear. Admin credentials
 * only: X-API-Key, or, for browsers, HTTP Basic with the admin key as password.
 */
export function queueDashboardRoutes(settings: QueueDashboardSettings, identities: Identities): Router {
  const router = Router();
  router.use(
    requireAdmin(identities),
    ...(settings.actions ? [] : [readsOnly]),
    htmlPageHeaders(),
    lazyRouter(() => dashboardRouter(settings)),
  );
  return router;
}

/** bull-board over the hosted queues, listed again on each request. */
async function dashboardRouter(settings: QueueDashboardSettings): Promise<Router> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const server = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  const board = createBullBoard({
    queues: [],
    serverAdapter: server,
    options: { uiConfig: { boardTitle: 'skillrun queues' } },
  });
  const dashboard = server.getRouter() as Express;
  dashboard.disable('x-powered-by');
  const adapters = new Map<string, InstanceType<typeof BullMQAdapter>>();
  const adapterOf = (queue: Queue) => {
    let adapter = adapters.get(queue.name);
    if (!adapter) {
      adapter = new BullMQAdapter(queue, { readOnlyMode: !settings.actions });
      adapters.set(queue.name, adapter);
    }
    return adapter;
  };
  const listQueues: RequestHandler = async function listQueues(_req, _res, next) {
    const queues = await hostedQueues(settings);
    board.replaceQueues(queues.map(adapterOf));
    next();
  };
  return Router().use(listQueues, dashboard);
}

/**
 * The queues (high priority and the rest) of every hosted version in the registry (registered
 * versions run elsewhere), under the prefix: bull-board knows a queue by its name, which each
 * vshard's repeats (REDIS_SHARDS above 1: its queues are not shown yet).
 */
async function hostedQueues({ registry, queues }: QueueDashboardSettings): Promise<Queue[]> {
  const found: Queue[] = [];
  let after: string | undefined;
  for (;;) {
    const ids = await registry.ids(after, IDS_PER_READ);
    for (const versions of (await registry.versionsOf(ids)).values()) {
      for (const entry of versions)
        if (entry.source === 'hosted') found.push(...queues.onPrefixOf(entry.id, entry.version));
    }
    if (ids.length < IDS_PER_READ) return found;
    after = ids.at(-1);
  }
}

/**
 * bull-board honours read-only mode queue by queue (its "pause all" merely skips read-only
 * queues); refusing every write here keeps the dashboard read-only whatever its routes do.
 */
const readsOnly: RequestHandler = function readsOnly(req, _res, next) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new SkillError(
      'ACCESS_DENIED',
      'The queue dashboard is read-only (QUEUE_DASHBOARD_ACTIONS=true allows changes)',
    );
  }
  next();
};

function requireAdmin(identities: Identities): RequestHandler {
  return async function adminOnly(req, res, next) {
    const identity = await identities.of(withBasicPassword(req));
    if (identity.kind !== 'principal') {
      res.setHeader('WWW-Authenticate', 'Basic realm="skillrun queues", charset="UTF-8"');
      throw authRequired(
        { type: 'api_key' },
        'The queue dashboard needs an admin credential (X-API-Key, or HTTP Basic with the key as password)',
      );
    }
    assertRole(identity.principal, 'admin', 'The queue dashboard');
    next();
  };
}

/** The request's headers, with the password of HTTP Basic credentials read as its X-API-Key. */
function withBasicPassword(req: Request): RequestHeaders {
  const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(headerOf(req.headers, 'authorization') ?? '');
  const decoded = match?.[1] === undefined ? '' : Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return req.headers;
  return { ...req.headers, 'x-api-key': decoded.slice(colon + 1) };
}
