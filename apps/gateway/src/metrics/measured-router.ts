import { Router } from 'express';

/**
 * A router of the gateway's routes, to mount under a prefix: the request metrics label its routes
 * with that prefix (`/skills/:skillId/invoke`), and what it answers without a route (an OPTIONS)
 * `unmatched`. It notes the prefix as a request enters: once an error has left the router, Express
 * has restored req.baseUrl to the app's, and req.baseUrl gives the prefix in the request's own case
 * (`/SKILLS`). The prefixes are lower-case, so lower-casing it gives them.
 */
export function measuredRouter(): Router {
  const router = Router();
  router.use(function noteMount(req, res, next) {
    res.locals.mount = req.baseUrl.toLowerCase();
    next();
  });
  return router;
}
