import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The console's security headers: helmet's set with a CSP of its own, stricter than the other
 * pages' (no inline script or style, nothing from any other host: the console works air-gapped and
 * talks to this gateway only), without `upgrade-insecure-requests` (over plain HTTP it would send the
 * page's own scripts to an https:// nobody answers), and Strict-Transport-Security only on answers
 * that came over HTTPS. The API key never appears in a URL, so `no-referrer` loses nothing.
 */
export function consoleHeaders(): RequestHandler {
  const page = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        manifestSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
  const hsts = helmet.strictTransportSecurity();
  return function setConsoleHeaders(req, res, next) {
    page(req, res, (error?: unknown) => {
      if (error !== undefined || !req.secure) next(error);
      else hsts(req, res, next);
    });
  };
}
