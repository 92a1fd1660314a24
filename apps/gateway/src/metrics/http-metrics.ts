import { isErrorCode } from '@skillrun/core';
import type { Request, RequestHandler, Response } from 'express';
import type { GatewayMetrics } from './gateway-metrics';

declare global {
  namespace Express {
    interface Locals {
      /** Set by the error handler: the code of the error envelope answered. */
      errorCode?: string;
      /** Set by a measured router: the prefix it is mounted at (see measuredRouter). */
      mount?: string;
    }
  }
}

/** POST /skills/{id}/invoke, also when the request fails before routing (a body too large). */
const INVOKE_PATH = /^\/skills\/([^/]+)\/invoke\/?$/i;

/** Counts and times every answer, and every invocation as accepted (by skill) or rejected (by reason). */
export function httpMetrics(metrics: GatewayMetrics): RequestHandler {
  return function measureRequest(req, res, next) {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = String(res.statusCode);
      metrics.requestAnswered({ method: req.method, route: routeOf(req, res), status }, seconds);
      const skill = invokedSkill(req);
      if (skill === undefined) return;
      if (res.statusCode === 202) {
        metrics.invocationAccepted(skill);
        if (res.getHeader('debounced') === 'true') metrics.invocationDebounced(skill);
      } else {
        const code = res.locals.errorCode;
        metrics.invocationRejected(code !== undefined && isErrorCode(code) ? code : 'UNKNOWN');
      }
    });
    next();
  };
}

/**
 * The route template that answered, after the prefix of the gateway's router it is in (`/skills` +
 * `/:skillId/invoke`), also once an error has left that router; `unmatched` when the router has no
 * route for the request. A request no router of the gateway's took is labelled by the middleware
 * that answered, by its mount path (`/docs` for Swagger UI, bull-board's routes under
 * `/admin/queues`), or `unmatched`.
 */
function routeOf(req: Request, res: Response): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  const { mount } = res.locals;
  if (mount !== undefined) return typeof route === 'string' ? `${mount}${route}` : 'unmatched';
  if (typeof route === 'string') return `${req.baseUrl}${route}`;
  return req.baseUrl || 'unmatched';
}

/** The skill id of an invocation request; only used as a label once the skill proved to exist (202). */
function invokedSkill(req: Request): string | undefined {
  if (req.method !== 'POST') return undefined;
  const match = INVOKE_PATH.exec(req.originalUrl.split('?')[0] ?? '');
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
