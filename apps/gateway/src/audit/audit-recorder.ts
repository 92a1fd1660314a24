import { type AuditActor, type Logger, SkillError } from '@skillrun/core';
import type { AuditAnswer, AuditLog } from '@skillrun/core/data';
import { type RequestHandler, type Response, Router } from 'express';
import type { Identities } from '../auth/identities';
import type { Identity } from '../auth/identity';
import { type AuditedAct, routeOf } from './audited-acts';

export interface AuditRecorderDeps {
  log: AuditLog;
  identities: Identities;
  logger: Logger;
}

/** Longest string, and most strings of a list, a record's `details` keeps of a field. */
const LONGEST = 200;
const MOST = 20;

/**
 * The one place administrative acts are audited: a router, mounted before the body is parsed and
 * before every slice's routes, that matches each act of the catalogue and passes every request on.
 * Before the act is done (before its body is read, its credentials checked, its route run) its
 * record is written: an act whose record cannot be written is refused (503) and not done, so an
 * act that succeeded always has its record, and so has every refusal, a body that is not JSON's
 * included. Once answered, the record is given the outcome (the status, the refusal's code) and the
 * details the body gave; if that write fails, the record stays and reads `unknown`.
 */
export function auditRecorder(deps: AuditRecorderDeps, acts: readonly AuditedAct[]): RequestHandler {
  const router = Router();
  for (const act of acts) router[act.method](routeOf(act.path), recordAct(deps, act));
  const audited = auditedPaths(acts);
  // Express' router answers an OPTIONS request itself with the methods of its own routes that
  // match: left to the routers that serve the path, which know all of them. A request no act can
  // match (every invocation) passes at once: the router would try each act's route in turn.
  return function auditRecorder(req, res, next) {
    if (audited.get(req.method)?.test(req.path)) router(req, res, next);
    else next();
  };
}

/**
 * By method, one expression matching every path an act of it has, as Express' routes match them
 * (a parameter is one segment, a trailing slash is optional, case is ignored): what the router
 * could match, tested once.
 */
function auditedPaths(acts: readonly AuditedAct[]): Map<string, RegExp> {
  const byMethod = new Map<string, string[]>();
  for (const { method, path } of acts) {
    const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
    const key = method.toUpperCase();
    byMethod.set(key, [...(byMethod.get(key) ?? []), pattern]);
  }
  return new Map(
    [...byMethod].map(([method, patterns]) => [method, new RegExp(`^(?:${patterns.join('|')})/?$`, 'i')]),
  );
}

function recordAct({ log, identities, logger }: AuditRecorderDeps, act: AuditedAct): RequestHandler {
  return async function auditedAct(req, res, next) {
    let auditId: string;
    try {
      auditId = await log.begin({
        actor: actorOf(await identities.of(req.headers)),
        action: act.action,
        method: req.method,
        path: req.path,
        target: { ...(req.params as Record<string, string>) },
        address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      });
    } catch (error) {
      logger.error({ err: error, action: act.action }, 'audit record not written: act refused');
      throw new SkillError(
        'SERVICE_UNAVAILABLE',
        'The audit log could not record this act, so it was not done; try again',
      );
    }
    res.once('finish', () => {
      const details = detailsOf(req.body, act.details ?? []);
      log.settle(auditId, answerOf(res), details).catch((error: unknown) => {
        logger.warn({ err: error, audit_id: auditId }, "audit record's outcome not written");
      });
    });
    next();
  };
}

function actorOf(identity: Identity): AuditActor {
  if (identity.kind === 'anonymous') return { caller_id: null, credential: 'none' };
  if (identity.kind === 'invalid') return { caller_id: null, credential: 'invalid' };
  const { callerId, method, keyId } = identity.principal;
  return { caller_id: callerId, credential: method, ...(keyId === undefined ? {} : { key_id: keyId }) };
}

/** The named fields of a JSON body, each a scalar or a list of strings, bounded. */
function detailsOf(body: unknown, fields: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const details: Record<string, unknown> = {};
  for (const field of fields) {
    const value = boundedOf((body as Record<string, unknown>)[field]);
    if (value !== undefined) details[field] = value;
  }
  return details;
}

function boundedOf(value: unknown): unknown {
  if (typeof value === 'string') return value.slice(0, LONGEST);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) {
    return value
      .filter((item): item is string => typeof item === 'string')
      .slice(0, MOST)
      .map((item) => item.slice(0, LONGEST));
  }
  return undefined;
}

function answerOf(res: Response): AuditAnswer {
  const status = res.statusCode;
  const outcome = status < 400 ? 'succeeded' : status < 500 ? 'refused' : 'failed';
  const code = (res.locals as { errorCode?: unknown }).errorCode;
  const location = res.getHeader('location');
  return {
    outcome,
    status,
    ...(typeof code === 'string' ? { error_code: code } : {}),
    ...(typeof location === 'string' ? { location } : {}),
  };
}
