import type { RequestHandler, Router } from 'express';

/**
 * A router built on its first request: an HTML page's libraries (Swagger UI, bull-board: some 30 MB
 * of a gateway's memory) are loaded only once someone opens the page. A build that fails is
 * tried again on the next request.
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
