import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's full defaults for the HTML pages (Swagger UI at /docs, the queue dashboard), with what
 * a gateway reached over plain HTTP (a laptop, a port-forward) needs: no `upgrade-insecure-requests`
 * in the CSP, which sends the page's own scripts to an https:// nobody answers (a blank page), and
 * Strict-Transport-Security only on answers that came over HTTPS (browsers ignore it otherwise;
 * behind a TLS-terminating proxy, TRUST_PROXY lets X-Forwarded-Proto say so).
 */
export function htmlPageHeaders(): RequestHandler {
  const page = helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    strictTransportSecurity: false,
  });
  const hsts = helmet.strictTransportSecurity();
  return function setHtmlPageHeaders(req, res, next) {
    page(req, res, (error?: unknown) => {
      if (error !== undefined || !req.secure) next(error);
      else hsts(req, res, next);
    });
  };
}
