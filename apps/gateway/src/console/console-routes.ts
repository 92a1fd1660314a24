import express, { type RequestHandler, Router } from 'express';
import { consoleAssetsDir } from './console-assets';
import { consoleHeaders } from './console-headers';

/** Where the gateway serves the console. */
export const CONSOLE_PATH = '/console';

/** Static files answer reads only; the rest fall through to 404. */
const readsOnly: RequestHandler = (req, _res, next) => {
  next(req.method === 'GET' || req.method === 'HEAD' ? undefined : 'router');
};

/**
 * /console (the router is mounted there): the operations console, a single page and its assets as
 * `npm run build` wrote them. Its pages are addressed after `#`, so `/console/` is the only
 * document; it reads the API with the credentials the person gives it, as any client does.
 * Every answer is revalidated (`no-cache`): a gateway upgraded under a browser serves the new files.
 */
export function consoleRoutes(dir = consoleAssetsDir()): Router {
  const router = Router();
  router.use(readsOnly, consoleHeaders());
  if (dir === undefined) {
    router.use(function consoleNotBuilt(_req, res) {
      res.status(503).type('text/plain').send('The console is not built: run `npm run build`.\n');
    });
    return router;
  }
  router.use(
    express.static(dir, {
      index: 'index.html',
      redirect: true,
      dotfiles: 'ignore',
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  return router;
}
