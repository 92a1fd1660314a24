import { isIP } from 'node:net';
import { SkillError } from '@skillrun/core';
import type { Request, RequestHandler } from 'express';

export interface OriginPolicy {
  /** PUBLIC_BASE_URL: the pages this gateway serves come from its origin. */
  baseUrl: string;
  /** MCP_ALLOWED_ORIGINS: the other web pages that may use /mcp. */
  allowedOrigins: readonly string[];
}

/** A Host no DNS answer can have sent here for another site's page: an IP address, or localhost. */
function cannotBeRebound(hostname: string): boolean {
  return hostname === 'localhost' || isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

/** Whether `origin` is the request's own (scheme, Host) and its Host cannot have been rebound. */
function isOwnOrigin(req: Request, origin: string): boolean {
  const own = `${req.protocol}://${req.get('host') ?? ''}`;
  if (!URL.canParse(origin) || !URL.canParse(own)) return false;
  const self = new URL(own);
  return new URL(origin).origin === self.origin && cannotBeRebound(self.hostname);
}

/**
 * The Streamable HTTP transport's MUST (revision 2025-11-25, "Security Warning"): an Origin header
 * that is present and not allowed is 403, so that a web page elsewhere cannot drive this gateway
 * through the visitor's browser, by DNS rebinding a name of its own to a local skillrun. Allowed:
 * no Origin (clients that are not browsers send none), PUBLIC_BASE_URL's origin,
 * MCP_ALLOWED_ORIGINS, and the request's own origin when its Host is an IP address or localhost (a
 * rebound page's Host is the attacker's name; an address or localhost in the Host means the page
 * came from this very server). The body is a JSON-RPC error carrying our envelope, as for the
 * endpoint's other HTTP errors (json-rpc-errors.ts; the transport allows any body).
 */
export function mcpOriginCheck(policy: OriginPolicy): RequestHandler {
  const allowed = new Set([new URL(policy.baseUrl).origin, ...policy.allowedOrigins]);
  return function checkOrigin(req, _res, next) {
    const origin = req.get('origin');
    if (origin === undefined || allowed.has(origin) || isOwnOrigin(req, origin)) {
      next();
      return;
    }
    next(
      new SkillError(
        'ACCESS_DENIED',
        'A web page of this origin may not use /mcp: list it in MCP_ALLOWED_ORIGINS if it should',
      ),
    );
  };
}
