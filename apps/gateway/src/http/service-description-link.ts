import type { RequestHandler } from 'express';

/**
 * `Link: <PUBLIC_BASE_URL/openapi.json>; rel="service-desc"` (RFC 8631) on every answer: where the
 * API's description is, at the base URL this service advertises in its descriptors. A client that
 * reached it under another name (127.0.0.1 for localhost, a proxy's address) learns from it that
 * the links it is given are the same service's, and that its credentials go there too.
 */
export function serviceDescriptionLink(baseUrl: string): RequestHandler {
  const link = `<${baseUrl}/openapi.json>; rel="service-desc"`;
  return function setServiceDescriptionLink(_req, res, next) {
    res.append('Link', link);
    next();
  };
}
