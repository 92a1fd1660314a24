import { isErrorCode } from '@skillrun/core';
import type { Request, RequestHandler } from 'express';
import type { GatewayMetrics } from './gateway-metrics';

declare global {
  namespace Express {
    interface Locals {
      /** Set by the error handler: the code of the error envelope answered. */
      errorCode?: string;
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
      metrics.requestAnswered({ method: req.method, route: routeOf(req), status }, seconds);
      const skill = invokedSkill(req);
      if (skill === undefined) return;
      if (res.statusCode === 202) metrics.invocationAccepted(skill);
      else {
        const code = res.locals.errorCode;
        metrics.invocationRejected(code !== undefined && isErrorCode(code) ? code : 'UNKNOWN');
      }
    });
    next();
  };
}

/** The route template that answered, with its mount path (`/docs` for Swagger UI's assets). */
function routeOf(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
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
