import type { RequestHandler } from 'express';

/**
 * The security header a JSON answer needs: `X-Content-Type-Options: nosniff`, so that no browser
 * reads one as HTML or script. The rest of helmet's set (CSP, frame and cross-origin policies…)
 * governs documents a browser renders; the HTML pages have it (htmlPageHeaders). Answers that
 * must not be cached (keys, execution status, readiness, metrics) say `Cache-Control: no-store`
 * themselves.
 */
export function jsonApiHeaders(): RequestHandler {
  return function setJsonApiHeaders(_req, res, next) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}
