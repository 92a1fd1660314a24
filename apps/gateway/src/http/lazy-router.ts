import type { RequestHandler, Router } from 'express';

/**
 * A router built on its first request: what only some requests need is loaded then, not at start
 * (the HTML pages' libraries, Swagger UI and bull-board, some 30 MB of a gateway's memory; the agent
 * protocols' SDKs, some 25 MB). A build that fails is tried again on the next request.
 */
export function lazyRouter(build: () => Promise<Router>): RequestHandler {
  let built: Promise<Router> | undefined;
  return function lazy(req, res, next) {
    built ??= build();
    built.then(
      (router) => router(req, res, next),
      (error: unknown) => {
        built = undefined;
        next(error);
      },
    );
  };
}
