import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import semver from 'semver';
import type { RawRequest } from '../raw-http';
import { ADMIN_HEADERS, fixtureSkills } from '../service-process';

// Constants, the request type, and small tools the fuzz cases share.

export const SEED = Number(process.env.FUZZ_SEED ?? 20_250_601);
export const CONCURRENCY = 8;
export const BODY_LIMIT = 1_048_576;
export const MAX_DEPTH = 64;
export const HOSTED = readdirSync(fixtureSkills);
export const HOSTED_VERSION = '1.0.0';
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
export const JSON_TYPE = { 'content-type': 'application/json' };
export const INVOKE = '/skills/echo/invoke';
export const DEPRECATE_ECHO = '/skills/echo/versions/1.0.0/deprecation';

export interface Case extends RawRequest {
  label: string;
  /** The one status this case must get, beyond "a 4xx in the envelope". */
  expect?: number;
}
export type Json = Record<string, unknown>;

/** Publishing needs admin credentials: with them, the fuzz reaches what comes after authentication. */
const publishes = (method: string, path: string) =>
  (method === 'POST' && path === '/skills') || path.endsWith('/deprecation');

/** A request with a JSON content type (unless `extra.headers` says otherwise). */
export const send = (
  label: string,
  method: string,
  path: string,
  body?: string | Buffer,
  extra: Partial<Case> = {},
): Case => {
  const headers = {
    ...(body === undefined ? {} : JSON_TYPE),
    ...(publishes(method, path) ? ADMIN_HEADERS : {}),
  };
  return { label, method, path, ...(body === undefined ? {} : { body }), headers, ...extra };
};

let salt = 0;
/** A seeded sample; each call has a seed of its own, so adding a generator does not reshuffle the others. */
export function sample<T>(arbitrary: fc.Arbitrary<T>, numRuns: number): T[] {
  return fc.sample(arbitrary, { numRuns, seed: SEED + 7919 * ++salt });
}

/** Sets an own, enumerable property, even `__proto__` (which an assignment would turn into a prototype). */
export function own<T extends object>(target: T, key: string, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

export const isPlainObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The node at `a.b.0` (undefined where a step is missing). */
export const at = (root: unknown, path: string): unknown =>
  path === ''
    ? root
    : path.split('.').reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root);

export function setPath(root: unknown, path: string, value: unknown): void {
  const parent = at(root, path.split('.').slice(0, -1).join('.'));
  if (parent !== null && typeof parent === 'object') own(parent, path.split('.').at(-1) as string, value);
}

export function removePath(root: unknown, path: string): void {
  const parent = at(root, path.split('.').slice(0, -1).join('.'));
  if (isPlainObject(parent)) delete parent[path.split('.').at(-1) as string];
}

/** RFC 3986 percent-encoding of the UTF-8 bytes; a lone surrogate goes as U+FFFD instead of throwing. */
export function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** `{__proto__: {constructor: {prototype: ... leaf}}}`, each key an own property. */
export function protoNest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = own({}, PROTO_KEYS[level % 3] as string, value);
  return value;
}

/** Whether a range, read as the gateway reads it, picks the fixture skills' one version. */
export function picksHosted(range: string): boolean {
  if (range.length === 0 || range.length > 256) return false;
  const normalised = semver.validRange(range.replaceAll(',', ' '));
  return normalised !== null && semver.satisfies(HOSTED_VERSION, normalised);
}

export const base64url = (text: string) => Buffer.from(text).toString('base64url');
export const json = (value: unknown) => JSON.stringify(value) ?? 'null';
