import type { RequestHandler } from 'express';

/**
 * The headers every answer carries, set in one middleware (every request passes each one the app
 * mounts):
 * - `X-Content-Type-Options: nosniff`, so that no browser reads a JSON answer as HTML or script.
 *   The rest of helmet's set (CSP, frame and cross-origin policies…) governs documents a browser
 *   renders; the HTML pages have it (htmlPageHeaders). Answers that must not be cached (keys,
 *   execution status, readiness, metrics) say `Cache-Control: no-store` themselves.
 * - `Link: <PUBLIC_BASE_URL/openapi.json>; rel="service-desc"` (RFC 8631): where the API's
 *   description is, at the base URL this service advertises in its descriptors. A client that
 *   reached it under another name (127.0.0.1 for localhost, a proxy's address) learns from it that
 *   the links it is given are the same service's, and that its credentials go there too. Appended:
 *   an answer may add links of its own.
 */
export function answerHeaders(baseUrl: string): RequestHandler {
  const link = `<${baseUrl}/openapi.json>; rel="service-desc"`;
  return function setAnswerHeaders(_req, res, next) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.append('Link', link);
    next();
  };
}
