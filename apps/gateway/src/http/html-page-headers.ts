import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's full defaults for the HTML pages (Swagger UI at /docs, the queue dashboard), with what
 * a gateway reached over plain HTTP (a laptop, a port-forward) needs: no `upgrade-insecure-requests`
 * in the CSP, which sends the page's own scripts to an https:// nobody answers (a blank page), and
 * Strict-Transport-Security and Cross-Origin-Opener-Policy only on answers that came over HTTPS
 * (browsers ignore both otherwise, and log an error for the second on every page at a host name;
 * behind a TLS-terminating proxy, TRUST_PROXY lets X-Forwarded-Proto say so).
 */
export function htmlPageHeaders(): RequestHandler {
  const page = helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    strictTransportSecurity: false,
    crossOriginOpenerPolicy: false,
  });
  return secureOnly(page);
}

/**
 * `headers`, then, on an answer that came over HTTPS, the headers browsers heed only there:
 * Strict-Transport-Security and Cross-Origin-Opener-Policy (same-origin).
 */
export function secureOnly(headers: RequestHandler): RequestHandler {
  const hsts = helmet.strictTransportSecurity();
  const coop = helmet.crossOriginOpenerPolicy();
  return function setPageHeaders(req, res, next) {
    headers(req, res, (error?: unknown) => {
      if (error !== undefined || !req.secure) next(error);
      else hsts(req, res, () => coop(req, res, next));
    });
  };
}
