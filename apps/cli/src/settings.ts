import { userInfo } from 'node:os';
import { localBaseUrl } from '@skillrun/core';
import { UsageError } from './cli-error';

/** The service the gateway's defaults make: the same origin its links name, so credentials go there. */
export const DEFAULT_URL = localBaseUrl();

/** The global flags as commander hands them over. */
export interface GlobalFlags {
  url?: string;
  apiKey?: string;
  token?: string;
  caller?: string;
  json?: boolean;
}

/** Where and as whom the CLI talks to the service: flags first, then the environment. */
export interface Settings {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly bearerToken?: string;
  /**
   * --caller, SKILLRUN_CALLER, a JWT's `sub`, or without credentials the user's name; with an API
   * key and none of those, absent: the client asks the service's GET /me whose key it is.
   */
  readonly caller?: { id: string; type: 'user' };
  readonly json: boolean;
}

export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Settings {
  const baseUrl = (flags.url ?? nonEmpty(env.SKILLRUN_URL) ?? DEFAULT_URL).replace(/\/+$/, '');
  if (!isHttpUrl(baseUrl)) {
    throw new UsageError(
      `"${baseUrl}" is not an http(s) URL`,
      `Pass the service with --url or SKILLRUN_URL, e.g. ${DEFAULT_URL}`,
    );
  }
  const apiKey = flags.apiKey ?? nonEmpty(env.SKILLRUN_API_KEY);
  const bearerToken = flags.token ?? nonEmpty(env.SKILLRUN_TOKEN);
  const callerId =
    flags.caller ??
    nonEmpty(env.SKILLRUN_CALLER) ??
    (bearerToken === undefined ? undefined : subjectOf(bearerToken)) ??
    (apiKey === undefined ? defaultCallerId() : undefined);
  return Object.freeze({
    baseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(bearerToken === undefined ? {} : { bearerToken }),
    ...(callerId === undefined ? {} : { caller: { id: callerId, type: 'user' as const } }),
    json: flags.json === true,
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function defaultCallerId(): string {
  try {
    return userInfo().username || 'skillrun-cli';
  } catch {
    return 'skillrun-cli';
  }
}

/**
 * A JWT's `sub`, the caller the gateway takes it for (read, not verified: the gateway verifies),
 * so that a token needs no --caller. Undefined for anything else (API keys name no caller).
 */
export function subjectOf(token: string): string | undefined {
  const [, payload, signature] = token.split('.');
  if (payload === undefined || signature === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}
