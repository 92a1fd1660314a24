import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { secureOnly } from '../http/html-page-headers';

/**
 * The console's security headers: helmet's set with a CSP of its own, stricter than the other
 * pages' (no inline script or style, nothing from any other host: the console works air-gapped and
 * talks to this gateway only), without `upgrade-insecure-requests` (over plain HTTP it would send the
 * page's own scripts to an https:// nobody answers), and Strict-Transport-Security and
 * Cross-Origin-Opener-Policy only on answers that came over HTTPS (secureOnly). The API key never appears in a URL, so `no-referrer` loses nothing.
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
    crossOriginOpenerPolicy: false,
  });
  return secureOnly(page);
}
