import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { httpStatusOf, isErrorCode, SemVer } from '@skillrun/core';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_DESCRIPTOR_FIELDS, translateDescriptor } from '../support/descriptors';
import { keepAliveAgent, mapBounded, type RawAnswer, type RawRequest, rawRequest } from '../support/raw-http';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

/*
 * Every request below is invalid by construction: each carries at least one violation that nothing
 * else in it can undo, so every answer must be a 4xx in the spec's error envelope, and a 2xx means
 * the gateway accepted what it should not have. Set FUZZ_SEED to replay another run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_250_601);
const CONCURRENCY = 8;
const BODY_LIMIT = 1_048_576;
const MAX_DEPTH = 64;
const HOSTED = readdirSync(fixtureSkills);
const HOSTED_VERSION = '1.0.0';
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const JSON_TYPE = { 'content-type': 'application/json' };
const INVOKE = '/skills/echo/invoke';
const DEPRECATE_ECHO = '/skills/echo/versions/1.0.0/deprecation';

interface Case extends RawRequest {
  label: string;
  /** The one status this case must get, beyond "a 4xx in the envelope". */
  expect?: number;
}
type Json = Record<string, unknown>;

/** A request with a JSON content type (unless `extra.headers` says otherwise). */
const send = (
  label: string,
  method: string,
  path: string,
  body?: string | Buffer,
  extra: Partial<Case> = {},
): Case => ({
  label,
  method,
  path,
  ...(body === undefined ? {} : { body, headers: JSON_TYPE }),
  ...extra,
});

// ---------------------------------------------------------------- small tools

let salt = 0;
/** A seeded sample; each call has a seed of its own, so adding a generator does not reshuffle the others. */
function sample<T>(arbitrary: fc.Arbitrary<T>, numRuns: number): T[] {
  return fc.sample(arbitrary, { numRuns, seed: SEED + 7919 * ++salt });
}

/** Sets an own, enumerable property, even `__proto__` (which an assignment would turn into a prototype). */
function own<T extends object>(target: T, key: string, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

const isPlainObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The node at `a.b.0` (undefined where a step is missing). */
const at = (root: unknown, path: string): unknown =>
  path === ''
    ? root
    : path.split('.').reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root);

function setPath(root: unknown, path: string, value: unknown): void {
  const parent = at(root, path.split('.').slice(0, -1).join('.'));
  if (parent !== null && typeof parent === 'object') own(parent, path.split('.').at(-1) as string, value);
}

function removePath(root: unknown, path: string): void {
  const parent = at(root, path.split('.').slice(0, -1).join('.'));
  if (isPlainObject(parent)) delete parent[path.split('.').at(-1) as string];
}

/** RFC 3986 percent-encoding of the UTF-8 bytes; a lone surrogate goes as U+FFFD instead of throwing. */
function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** `{__proto__: {constructor: {prototype: ... leaf}}}`, each key an own property. */
function protoNest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = own({}, PROTO_KEYS[level % 3] as string, value);
  return value;
}

/** Whether a range, read as the gateway reads it, picks the fixture skills' one version. */
function picksHosted(range: string): boolean {
  if (range.length === 0 || range.length > 256) return false;
  const normalised = semver.validRange(range.replaceAll(',', ' '));
  return normalised !== null && semver.satisfies(HOSTED_VERSION, normalised);
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');
const json = (value: unknown) => JSON.stringify(value) ?? 'null';

// ---------------------------------------------------------------- shared arbitraries

const anyString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    '\u0000',
    '\ud800',
    '\udfff x',
    'a\u0000b',
    '\u202e',
    '🦄',
    '\r\n',
    '\u0024{x}',
    '../..',
  ),
);
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const nonObject = fc.oneof(
  anyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(jsonValue, { maxLength: 3 }),
);
const nonString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(jsonValue, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), jsonValue, { maxKeys: 3 }),
);
const nonBoolean = fc.oneof(
  anyString,
  fc.integer(),
  fc.constant(null),
  fc.array(fc.boolean(), { maxLength: 2 }),
);
const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), 2 ** 64, 1e21);
/** More than `max` code points, whatever the random tail holds. */
const longerThan = (max: number) =>
  fc.string({ unit: 'binary', maxLength: 200 }).map((tail) => `${'x'.repeat(max + 1)}${tail}`);
/** A key outside `known`: prototype names, unicode, empty, or very long. */
const keyOutside = (known: readonly string[]) =>
  fc
    .oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...PROTO_KEYS, 'toString', 'hasOwnProperty', '', ' ', 'a/b', '~0', '$ref'),
      },
      { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }) },
      { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1000, max: 3000 }).map((length) => 'k'.repeat(length)) },
    )
    .filter((key) => !known.includes(key));

const NASTY_SEGMENTS = [
  ...['..', '.', '%2E%2E', '%2e', '%2F', '..%2F..%2Fetc%2Fpasswd', 'echo%2F..', '%00', 'echo%00'],
  ...['%ZZ', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AE%C0%AE', '%F0%9F%92%A9', 'ECHO', '%20echo', 'echo%20'],
  ...[...PROTO_KEYS, 'hasOwnProperty', '%7Bskill_id%7D', ':skillId', '*', "'", '!', '(x)'],
  ...['a'.repeat(300), 'b'.repeat(6000)],
];
/** A path segment that names no hosted skill: random text (percent-encoded), nasty, or long. */
const unknownSegment = fc
  .oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(percentEncode) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(percentEncode) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: 6000 }).map((length) => 'z'.repeat(length)) },
  )
  .filter((segment) => !HOSTED.includes(decodeSegment(segment) ?? segment));
const anySkillSegment = fc.oneof(unknownSegment, fc.constantFrom(...HOSTED));
const executionSegment = fc.oneof(
  fc.uuid(),
  fc.constantFrom('00000000-0000-4000-8000-000000000000', '..', '%2F', '%ZZ', '__proto__', 'x'.repeat(5000)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(percentEncode),
);
/** A `?version=` value that cannot pick a hosted version: not a range, empty, too long, or matching nothing. */
const versionNotPickingHosted = fc
  .oneof(
    anyString,
    fc.constantFrom('not a range', '^4', '>=2', '<1', '1.0.1', '2.x', '^0', '~0.9', '>=1.0.0,<1.0.0', '!!'),
    longerThan(256),
  )
  .filter((range) => !picksHosted(range));

/** One violation of one field. Applied to a valid body, it makes it invalid for good. */
interface Breaker {
  field: string;
  apply(body: Json): void;
}
const breaker = <T>(field: string, value: fc.Arbitrary<T>, apply: (body: Json, value: T) => void) =>
  value.map((drawn): Breaker => ({ field, apply: (body) => apply(body, drawn) }));

/** A valid body, then noise where the schema allows extra keys (never where a breaker acts), then 1-3 breakers. */
const broken = (
  valid: () => Json,
  breakers: fc.Arbitrary<Breaker>[],
  noise: fc.Arbitrary<[string, string, unknown][]>,
  skip: (where: string, key: string) => boolean,
) =>
  fc
    .record({
      picked: fc.uniqueArray(fc.oneof(...breakers), {
        minLength: 1,
        maxLength: 3,
        selector: (each) => each.field,
      }),
      noise,
    })
    .map(({ picked, noise: added }) => {
      const body = valid();
      for (const [where, key, value] of added) {
        const target = at(body, where);
        if (isPlainObject(target) && !skip(where, key)) own(target, key, value);
      }
      for (const each of picked) each.apply(body);
      return body;
    });

const noiseAt = (places: string[], keys: fc.Arbitrary<string>) =>
  fc.array(
    fc.tuple(
      fc.constantFrom(...places),
      keys,
      fc.oneof(
        jsonValue,
        fc.integer({ min: 1, max: 12 }).map((depth) => protoNest(depth, { id: 'x' })),
      ),
    ),
    { maxLength: 4 },
  );

// ---------------------------------------------------------------- POST /skills/{id}/invoke

const validEnvelope = (): Json => ({
  caller: { id: 'fuzzer', type: 'service' },
  skill_id: 'echo',
  inputs: { text: 'ok' },
});
const inInputs = (body: Json, edit: (inputs: Json) => void) => {
  if (isPlainObject(body.inputs)) edit(body.inputs);
};
const countNotValid = fc
  .oneof(
    fc.integer().filter((count) => count < 1 || count > 10),
    fc.double().filter((count) => !Number.isInteger(count)),
    hugeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 2 }),
    anyString,
    fc.constantFrom('0', '11', ' 5x', '1e1', '-3', '5.5', 'NaN', 'Infinity'),
  )
  .filter((count) => {
    // Spec 002's coercion turns an integer literal string into a number: "5" would be a valid count.
    if (typeof count !== 'string' || !/^[+-]?\d+$/.test(count.trim())) return true;
    const number = Number(count.trim());
    return !(Number.isSafeInteger(number) && number >= 1 && number <= 10);
  });

const invokeBreakers = [
  breaker('caller', nonObject, (body, value) => own(body, 'caller', value)),
  breaker('caller', fc.constantFrom('caller', 'caller.id', 'caller.type'), removePath),
  breaker('caller', fc.oneof(fc.constant(''), longerThan(256), nonString), (body, id) =>
    setPath(body, 'caller.id', id),
  ),
  breaker(
    'caller',
    fc.oneof(
      nonString,
      anyString.filter((type) => !['ifay', 'service', 'user'].includes(type)),
    ),
    (body, type) => setPath(body, 'caller.type', type),
  ),
  breaker('caller', nonObject, (body, credentials) => setPath(body, 'caller.credentials', credentials)),
  breaker('skill_id', fc.oneof(nonString, fc.constant(''), longerThan(256), anyString), (body, id) =>
    own(body, 'skill_id', id === 'echo' ? 'ech0' : id),
  ),
  breaker('skill_id', fc.constant('skill_id'), removePath),
  breaker('inputs', nonObject, (body, inputs) => own(body, 'inputs', inputs)),
  breaker('inputs', fc.constant('inputs'), removePath),
  breaker('text', fc.oneof(nonString, fc.constant(''), longerThan(50)), (body, text) =>
    inInputs(body, (inputs) => own(inputs, 'text', text)),
  ),
  breaker('text', fc.constant('inputs.text'), removePath),
  breaker('count', countNotValid, (body, count) => inInputs(body, (inputs) => own(inputs, 'count', count))),
  breaker(
    'mode',
    jsonValue.filter((mode) => mode !== 'plain' && mode !== 'loud'),
    (body, mode) => inInputs(body, (inputs) => own(inputs, 'mode', mode)),
  ),
  breaker(
    'when',
    fc.oneof(
      nonString.filter((when) => !Array.isArray(when)),
      anyString.map((when) => `not-a-date ${when}`),
      fc.constantFrom('2025-13-01T00:00:00Z', '2025-01-01', '2025-01-01T25:00:00Z', 'yesterday'),
    ),
    (body, when) => inInputs(body, (inputs) => own(inputs, 'when', when)),
  ),
  breaker(
    'extra',
    fc.array(fc.tuple(keyOutside(['text', 'count', 'mode', 'when']), jsonValue), {
      minLength: 1,
      maxLength: 60,
    }),
    (body, extras) =>
      inInputs(body, (inputs) => {
        for (const [key, value] of extras) own(inputs, key, value);
      }),
  ),
  breaker('context', nonObject, (body, context) => own(body, 'context', context)),
  breaker(
    'context',
    fc.oneof(
      fc.record({
        priority: jsonValue.filter((priority) => !['low', 'normal', 'high'].includes(priority as string)),
      }),
      fc.record({
        timeout_ms: fc.oneof(
          fc.integer().filter((ms) => ms < 1 || ms > 86_400_000),
          fc.double().filter((ms) => !Number.isInteger(ms)),
          fc.constantFrom('100', null, true, [], {}),
          hugeNumber,
        ),
      }),
      fc.record({
        trace_id: fc.oneof(
          nonString,
          fc.constant(''),
          longerThan(128),
          anyString.filter((id) => !/^[A-Za-z0-9._:-]+$/.test(id)),
        ),
      }),
    ),
    (body, context) => own(body, 'context', context),
  ),
  breaker('version', fc.oneof(nonString, versionNotPickingHosted), (body, version) =>
    own(body, 'version', version),
  ),
];
const ENVELOPE_KEYS: Record<string, string[]> = {
  '': ['caller', 'skill_id', 'version', 'inputs', 'context'],
  caller: ['id', 'type', 'credentials'],
  context: ['trace_id', 'priority', 'timeout_ms'],
};
const invalidEnvelope = broken(
  () => ({ ...validEnvelope(), context: { priority: 'low' } }),
  invokeBreakers,
  noiseAt(['', 'caller', 'context'], keyOutside([])),
  (where, key) => ENVELOPE_KEYS[where]?.includes(key) ?? true,
);

function invokeCases(): Case[] {
  const cases = sample(invalidEnvelope, 550).map((body) =>
    send('invoke/envelope', 'POST', INVOKE, json(body)),
  );
  // A valid envelope spoilt by its query: a version that picks nothing, an array, an unknown key.
  const spoilingQuery = fc.oneof(
    versionNotPickingHosted.map((range) => `?version=${percentEncode(range)}`),
    fc.constantFrom('?version=', '?version=1.0.0&version=1.0.0', '?__proto__=x', '?version[]=1', '?v=1'),
    fc
      .tuple(keyOutside(['version']), anyString)
      .map(([key, value]) => `?${percentEncode(key)}=${percentEncode(value)}`),
  );
  for (const query of sample(spoilingQuery, 100)) {
    cases.push(send('invoke/query', 'POST', `${INVOKE}${query}`, json(validEnvelope())));
  }
  cases.push(
    send(
      'invoke/two-versions',
      'POST',
      `${INVOKE}?version=1.0.0`,
      json({ ...validEnvelope(), version: '^1' }),
      { expect: 400 },
    ),
  );
  // An unknown skill in the URL, with an envelope naming it.
  for (const id of sample(unknownSegment, 120)) {
    const named = { ...validEnvelope(), skill_id: decodeSegment(id) ?? id };
    cases.push(send('invoke/url-id', 'POST', `/skills/${id}/invoke`, json(named)));
  }
  return cases;
}

// ---------------------------------------------------------------- bodies: not JSON, too deep, too big, wrong type

const notJson = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 100 }),
    fc.string({ maxLength: 100 }),
    fc.constantFrom(
      '',
      ' ',
      '{',
      '}',
      '{"caller": ',
      "{'caller': 1}",
      '{"a":1,}',
      '[1,2',
      'null',
      'true',
      '"echo"',
    ),
    fc.constantFrom(
      '123',
      '1e400',
      'NaN',
      '{"a": NaN}',
      '{"a": undefined}',
      '{"a": 0x10}',
      '{"a": .5}',
      '{"a": "\u0000"}',
    ),
    fc.constantFrom('{"a": "\\x00"}', '{"a": "\\ud800\\u"}', '\ufeff', '{}{}', '[]]', '{"__proto__": }'),
  )
  .filter((text) => {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed === null || typeof parsed !== 'object';
    } catch {
      return true;
    }
  });

/** Brackets `depth` deep in one of four shapes; open ones are never closed. */
function nested(depth: number, shape: number, closed = true): string {
  const open = ['[', '{"a":', '{"__proto__":[', '[{"constructor":'][shape % 4] as string;
  const close = [']', '}', ']}', '}]'][shape % 4] as string;
  const levels = shape % 4 >= 2 ? Math.ceil(depth / 2) : depth;
  return `${open.repeat(levels)}1${closed ? close.repeat(levels) : ''}`;
}

const BODY_ROUTES = [
  ['POST', INVOKE],
  ['POST', '/skills'],
  ['PUT', DEPRECATE_ECHO],
] as const;
const routeFor = (index: number) => BODY_ROUTES[index % BODY_ROUTES.length] as (typeof BODY_ROUTES)[number];
const CALLER = '"caller":{"id":"a","type":"user"}';

function rawBodyCases(): Case[] {
  const cases = sample(notJson, 150).map((text) =>
    send('raw/not-json', 'POST', INVOKE, text, { expect: 400 }),
  );
  const whole = json({ ...validEnvelope(), inputs: { text: 'truncated', count: 3, mode: 'loud' } });
  for (const cut of sample(fc.integer({ min: 0, max: whole.length - 1 }), 60)) {
    cases.push(send('raw/truncated', 'POST', INVOKE, whole.slice(0, cut), { expect: 400 }));
  }
  for (const bytes of sample(fc.uint8Array({ minLength: 1, maxLength: 40 }), 30)) {
    const body = Buffer.concat([Buffer.from('{"a":"'), bytes, Buffer.from([0xff, 0xfe])]);
    cases.push(send('raw/bytes', 'POST', INVOKE, body, { expect: 400 }));
  }
  for (const body of [
    `\ufeff${json({ skill_id: 'echo' })}`,
    `{${CALLER},"skill_id":"echo","skill_id":"other","inputs":{"text":"x"}}`,
    `{${CALLER},"skill_id":"echo","inputs":{"text":"x"},"inputs":7}`,
    `{${CALLER},"skill_id":"echo","inputs":{"text":"x","count":1e400}}`,
    `{${CALLER},"skill_id":"echo","inputs":{"text":"x","count":123456789012345678901234567890}}`,
    `{${CALLER},"skill_id":"echo","inputs":{"text":"x","count":1${'0'.repeat(5000)}}}`,
    '{"caller":{"id":"\\ud800","type":"user\\u0000"},"skill_id":"echo","inputs":{"text":"\\udfff"}}',
    `{${CALLER},"skill_id":"echo","inputs":{"text":"x","\\u0000":1}}`,
    `{${CALLER},"skill_id":"echo\\u0000","inputs":{"text":"x"}}`,
  ]) {
    cases.push(send('raw/nasty', 'POST', INVOKE, body, { expect: 400 }));
  }
  // Deeper than 64: refused before parsing on every route that takes a body, closed or not.
  const deep = fc.record({
    depth: fc.integer({ min: MAX_DEPTH + 1, max: 5000 }),
    shape: fc.nat(3),
    closed: fc.boolean(),
  });
  sample(deep, 120).forEach(({ depth, shape, closed }, index) => {
    const [method, path] = routeFor(index);
    cases.push(send('raw/deep', method, path, nested(depth, shape, closed), { expect: 400 }));
  });
  for (const depth of [63, 100, 1000, 5000]) {
    const body = `{${CALLER},"skill_id":"echo","inputs":{"text":"x","deep":${nested(depth, 0)}}}`;
    cases.push(send('raw/deep-inputs', 'POST', INVOKE, body, { expect: 400 }));
  }
  // Brackets inside strings do not count: this is shallow, and invalid for other reasons.
  cases.push(
    send('raw/brackets-in-string', 'POST', INVOKE, json({ skill_id: 'echo', s: '['.repeat(5000) }), {
      expect: 400,
    }),
  );
  // Just over 1 MiB: 413, with a Content-Length or chunked; just under it: parsed, and refused (text too long).
  const padded = (size: number) => {
    const head = `{${CALLER},"skill_id":"echo","inputs":{"text":"`;
    return `${head}${'x'.repeat(size - head.length - 3)}"}}`;
  };
  [1, 2, 17, 1000, 65_536].forEach((over, index) => {
    const [method, path] = routeFor(index);
    cases.push(send('raw/too-large', method, path, padded(BODY_LIMIT + over), { expect: 413 }));
  });
  const chunked = { headers: { ...JSON_TYPE, 'transfer-encoding': 'chunked' }, expect: 413 };
  cases.push(
    send('raw/too-large', 'POST', INVOKE, `[${'1,'.repeat(BODY_LIMIT / 2)}1]`, { expect: 413 }),
    send('raw/too-large-chunked', 'POST', INVOKE, padded(BODY_LIMIT + 10), chunked),
    send('raw/too-large-chunked', 'POST', '/skills', nested(BODY_LIMIT, 0), chunked),
    send('raw/almost-too-large', 'POST', INVOKE, padded(BODY_LIMIT - 10), { expect: 400 }),
  );
  return cases;
}

function mediaTypeCases(): Case[] {
  const validText = json(validEnvelope());
  const otherType = fc.oneof(
    fc.constantFrom(
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ),
    fc.constantFrom(
      'application/xml',
      'application/jsonx',
      'application/json-patch+json',
      'application/vnd.api+json',
    ),
    fc.constantFrom('application/octet-stream', 'json', '*/*', 'application/*', ''),
    fc.stringMatching(/^[a-z]{1,12}\/[a-z0-9.+-]{1,20}$/).filter((type) => type !== 'application/json'),
  );
  const cases = sample(
    fc.tuple(otherType, fc.oneof(fc.constant(validText), notJson, fc.constant('{}'))),
    150,
  ).map(([type, body], index) => {
    const [method, path] = routeFor(index);
    return send('media/type', method, path, body, { headers: { 'content-type': type }, expect: 415 });
  });
  for (const [method, path] of BODY_ROUTES)
    cases.push(send('media/no-type', method, path, validText, { headers: {}, expect: 415 }));
  // JSON in a charset that is not UTF, and encodings that are unknown or not what they claim.
  for (const charset of ['latin1', 'iso-8859-1', 'ascii', 'x-unknown', 'windows-1252']) {
    const headers = { 'content-type': `application/json; charset=${charset}` };
    cases.push(send('media/charset', 'POST', INVOKE, validText, { headers, expect: 415 }));
  }
  const utf16 = Buffer.from(json({ skill_id: 'echo', inputs: { text: 'ok' } }), 'utf16le');
  cases.push(
    send('media/charset', 'POST', INVOKE, utf16, {
      headers: { 'content-type': 'application/json; charset=utf-16' },
      expect: 400,
    }),
  );
  for (const encoding of ['x-unknown', 'compress', 'gzip, x-unknown']) {
    cases.push(
      send('media/encoding', 'POST', INVOKE, validText, {
        headers: { ...JSON_TYPE, 'content-encoding': encoding },
        expect: 415,
      }),
    );
  }
  for (const encoding of ['gzip', 'deflate', 'br']) {
    cases.push(
      send('media/not-compressed', 'POST', INVOKE, validText, {
        headers: { ...JSON_TYPE, 'content-encoding': encoding },
      }),
    );
  }
  const gzipped = gzipSync(json({ skill_id: 'echo' }));
  cases.push(
    send('media/gzip', 'POST', INVOKE, gzipped, {
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      expect: 400,
    }),
  );
  return cases;
}

// ---------------------------------------------------------------- GET /skills (search)

const SEARCH_KEYS = ['q', 'tag', 'capability_type', 'category', 'limit', 'cursor'];
type Pair = [string, string];

const limitNotValid = fc
  .oneof(
    fc.integer().map(String),
    anyString,
    fc.constantFrom('0', '101', '-1', '1.5', '1e3', '0x10', ' ', 'NaN', '２０'),
  )
  .filter((limit) => {
    // ajv's type coercion reads any numeric string (" 5", "0x10", "1e1") as a number.
    if (limit === '' || Number.isNaN(Number(limit))) return true;
    const number = Number(limit);
    return !(Number.isInteger(number) && number >= 1 && number <= 100);
  });
const badCursor = fc.oneof(
  fc.constantFrom(
    base64url('{"after":5}'),
    base64url('[]'),
    base64url('null'),
    base64url('"x"'),
    base64url('{'),
  ),
  fc.constantFrom(base64url('{"before":"a"}'), '%%%', '', '!!!'),
  longerThan(400),
);
/** Pairs that make any search query invalid, whatever comes with them. */
const searchViolation: fc.Arbitrary<Pair[]> = fc.oneof(
  fc
    .tuple(
      keyOutside(SEARCH_KEYS).filter((key) => key.length > 0),
      anyString,
    )
    .map((pair) => [pair]),
  limitNotValid.map((limit): Pair[] => [['limit', limit]]),
  fc.tuple(fc.constantFrom(...SEARCH_KEYS), anyString, anyString).map(([key, a, b]): Pair[] => [
    [key, a],
    [key, b],
  ]),
  fc
    .constantFrom<[string, number]>(['q', 200], ['tag', 100], ['category', 100], ['cursor', 400])
    .chain(([key, max]) => longerThan(max).map((value): Pair[] => [[key, value]])),
  anyString
    .filter((type) => !['plugin', 'api', 'knowledge', 'task'].includes(type))
    .map((type): Pair[] => [['capability_type', type]]),
  badCursor.map((cursor): Pair[] => [['cursor', cursor]]),
);
/** Pairs that are valid on their own (at most one per key). */
const searchNoise = fc.record(
  {
    q: fc.string({ unit: 'binary', maxLength: 50 }),
    tag: fc.string({ maxLength: 50 }),
    category: fc.string({ maxLength: 50 }),
    capability_type: fc.constantFrom('plugin', 'api', 'knowledge', 'task'),
    limit: fc.integer({ min: 1, max: 100 }).map(String),
    cursor: fc.string({ maxLength: 30 }).map((after) => base64url(json({ after }))),
  },
  { requiredKeys: [] },
);

function searchCases(): Case[] {
  const encode = ([key, value]: Pair) => `${percentEncode(key)}=${percentEncode(value)}`;
  // Noise printable enough goes raw, to reach the query parser's edges (`+`, `%`, `&`, `=`); never `#`.
  const raw = ([key, value]: Pair) =>
    /^[\x21-\x22\x24-\x7e]*$/.test(key + value) ? `${key}=${value}` : encode([key, value]);
  const query = fc
    .tuple(searchViolation, searchNoise, fc.boolean(), fc.nat())
    .map(([violation, noise, sendRaw, turn]) => {
      const pairs = [
        ...violation.map(encode),
        ...(Object.entries(noise) as Pair[]).map(sendRaw ? raw : encode),
      ];
      return [...pairs.slice(turn % pairs.length), ...pairs.slice(0, turn % pairs.length)].join('&');
    });
  const cases = sample(query, 400).map((text) => send('search/query', 'GET', `/skills?${text}`));
  for (const text of [
    'tag=a&tag=b',
    'limit=1&limit=2',
    'limit=0',
    'limit=1000',
    'cursor=%%%',
    'capability_type=robot',
  ]) {
    cases.push(send('search/hand', 'GET', `/skills?${text}`, undefined, { expect: 400 }));
  }
  for (const text of [
    'colour=red',
    '__proto__=x',
    'constructor=1',
    'tag[]=a',
    'q[a]=1',
    'limit',
    `${'k'.repeat(3000)}=1`,
  ]) {
    cases.push(send('search/hand', 'GET', `/skills?${text}`, undefined, { expect: 400 }));
  }
  return cases;
}

// ---------------------------------------------------------------- GET a skill, its versions, an execution

function readCases(): Case[] {
  const cases: Case[] = [];
  const unknownVersion = fc.option(fc.oneof(anyString, fc.constantFrom('^1', '1.0.0', '*', 'latest')), {
    nil: undefined,
  });
  for (const [id, version] of sample(fc.tuple(unknownSegment, unknownVersion), 120)) {
    const query = version === undefined ? '' : `?version=${percentEncode(version)}`;
    cases.push(send('describe/unknown', 'GET', `/skills/${id}${query}`));
  }
  const spoilt = fc.tuple(
    fc.constantFrom(...HOSTED),
    fc.oneof(
      versionNotPickingHosted.map((range) => `?version=${percentEncode(range)}`),
      fc.constantFrom('?version=', '?version=1.0.0&version=^1', '?__proto__=1', '?limit=1'),
    ),
  );
  for (const [id, query] of sample(spoilt, 100))
    cases.push(send('describe/hosted', 'GET', `/skills/${id}${query}`));
  for (const id of sample(unknownSegment, 100))
    cases.push(send('versions/unknown', 'GET', `/skills/${id}/versions`));
  const execution = fc.tuple(anySkillSegment, executionSegment, fc.constantFrom('status', 'result'));
  for (const [id, executionId, step] of sample(execution, 250)) {
    cases.push(send(`${step}/unknown`, 'GET', `/skills/${id}/${step}/${executionId}`));
  }
  return cases;
}

// ---------------------------------------------------------------- POST /skills (registration)

const DESCRIPTOR_TYPES: Record<string, string> = {
  ...Object.fromEntries(REQUIRED_DESCRIPTOR_FIELDS.map((field) => [field, 'string'])),
  ...{
    protocol: 'object',
    provider: 'object',
    endpoint: 'object',
    output: 'object',
    auth: 'object',
    inputs: 'array',
  },
  ...{
    tags: 'array',
    documentation_url: 'string',
    created_at: 'string',
    updated_at: 'string',
    'x-category': 'string',
  },
  ...{ 'x-coercion': 'boolean', 'x-migrations': 'array' },
};
const jsonKind = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
const notOneOf = (values: string[]) => jsonValue.filter((value) => !values.includes(value as string));
const semverPattern = new RegExp(SemVer.pattern as string);
const notSemver = fc
  .oneof(
    anyString,
    fc.constantFrom('two', '1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0 ', `1.0.0-${'a'.repeat(70)}`),
  )
  .filter((version) => !semverPattern.test(version) || version.length > 64);
const notUri = fc.oneof(
  nonString,
  fc.constantFrom('not a uri', '', 'http://exa mple.com', '//no-scheme', 'http://[::1'),
);
let deepSchema: Json = { type: 'string' };
for (let level = 0; level < 40; level++) deepSchema = { type: 'object', properties: { x: deepSchema } };
const hostileSchema = fc.oneof(
  nonObject,
  fc.constantFrom<unknown>(
    deepSchema,
    { type: 'string', pattern: '^(a+)+$' },
    { type: 'string', pattern: '^(?=a)a$' },
    { type: 'string', pattern: '[' },
    { type: 'strng' },
    { type: 123 },
    { $ref: '#/$defs/missing' },
    { minLength: -1 },
    { required: 'x' },
    { type: 'string', description: 'x'.repeat(70_000) },
    // Over 5000 keys and items in all (3000 properties of two keys each).
    {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 3000 }, (_, index) => [`f${index}`, { type: 'string', description: 'pad' }]),
      ),
    },
  ),
);
const parameter = (fields: Json) =>
  fc.record({ name: fc.constant('p'), type: fc.constant('string'), required: fc.boolean(), ...fields });
const badParameter = fc.oneof(
  nonObject,
  parameter({ name: fc.oneof(fc.constant(''), longerThan(256), nonString) }),
  parameter({ type: fc.oneof(nonString, fc.constantFrom('strng', 'int', 'String')) }),
  parameter({ required: nonBoolean }),
  fc.record({ name: fc.constant('p'), type: fc.constant('string') }),
  parameter({ schema: fc.oneof(nonObject, fc.constantFrom({ pattern: '^(a+)+$' }, { minLength: 'one' })) }),
);
const step = (op: string, path: string, extra: Json = {}) => ({ op, path, ...extra });
const badMigrations = fc.oneof(
  nonObject.filter((value) => !Array.isArray(value)),
  fc.constantFrom<unknown>(
    [{ from_major: 2, steps: [step('wrap', '/a')] }],
    [{ from_major: 1, steps: [step('rename', '/a')] }],
    [{ from_major: 1, steps: [step('set', '/__proto__/x', { value: 1 })] }],
    [{ from_major: 1, steps: [step('set', '/constructor/prototype', { value: 1 })] }],
    [{ from_major: 1, steps: [] }],
    [{ from_major: -1, steps: [step('remove', '/a')] }],
    [{ from_major: 1, steps: [step('explode', '/a')] }],
    [
      { from_major: 1, steps: [step('remove', '/a')] },
      { from_major: 1, steps: [step('remove', '/b')] },
    ],
  ),
);

const descriptorBreakers = [
  breaker('required', fc.constantFrom(...REQUIRED_DESCRIPTOR_FIELDS), removePath),
  fc.constantFrom(...Object.keys(DESCRIPTOR_TYPES)).chain((field) =>
    breaker(
      field,
      jsonValue.filter((value) => jsonKind(value) !== DESCRIPTOR_TYPES[field]),
      (body, value) => own(body, field, value),
    ),
  ),
  breaker(
    'id',
    fc.oneof(anyString, fc.constantFrom('.x', '-x', 'a/b', 'a b', '..', 'a'.repeat(129), 'é', 'a\u0000')),
    (body, id) =>
      own(body, 'id', /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) && id.length <= 128 ? `${id}/` : id),
  ),
  breaker('version', notSemver, (body, version) => own(body, 'version', version)),
  breaker('name', fc.oneof(fc.constant(''), nonString), (body, name) => own(body, 'name', name)),
  breaker('capability_type', notOneOf(['plugin', 'api', 'knowledge', 'task']), (body, type) =>
    own(body, 'capability_type', type),
  ),
  breaker('access', notOneOf(['public', 'restricted', 'private']), (body, access) =>
    own(body, 'access', access),
  ),
  breaker('protocol', notSemver, (body, version) => setPath(body, 'protocol.version', version)),
  breaker('protocol', notUri, (body, url) => setPath(body, 'protocol.changelog_url', url)),
  breaker('provider', fc.oneof(fc.constant(''), nonString), (body, name) =>
    setPath(body, 'provider.name', name),
  ),
  breaker('provider', notUri, (body, url) => setPath(body, 'provider.url', url)),
  breaker('endpoint', notUri, (body, url) => setPath(body, 'endpoint.url', url)),
  breaker('endpoint', notOneOf(['POST']), (body, method) => setPath(body, 'endpoint.method', method)),
  breaker(
    'endpoint',
    fc.tuple(
      fc.constantFrom('status_url', 'result_url'),
      fc.oneof(
        nonString,
        anyString.filter((url) => !url.includes('{execution_id}')),
      ),
    ),
    (body, [field, url]) => setPath(body, `endpoint.${field}`, url),
  ),
  breaker(
    'endpoint',
    fc.tuple(
      fc.constantFrom('timeout_ms', 'retry.max_attempts', 'retry.backoff_ms'),
      fc.oneof(
        fc.integer({ max: -1 }),
        fc.double().filter((n) => !Number.isInteger(n)),
        fc.oneof(
          anyString,
          nonString.filter((value) => typeof value !== 'number'),
        ),
      ),
    ),
    (body, [field, value]) => setPath(body, `endpoint.${field}`, value),
  ),
  breaker(
    'endpoint',
    fc.constantFrom('endpoint.retry', 'endpoint.content_type', 'endpoint.timeout_ms'),
    removePath,
  ),
  breaker('auth', notOneOf(['api_key', 'oauth2', 'custom', 'none']), (body, type) =>
    setPath(body, 'auth.type', type),
  ),
  breaker(
    'auth',
    fc.oneof(
      anyString.filter((header) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)),
      fc.constant('h'.repeat(129)),
      nonString,
    ),
    (body, header) => setPath(body, 'auth.header', header),
  ),
  breaker(
    'auth',
    fc.oneof(nonObject, fc.constant({ authorization_url: 'not a uri', token_url: 'x', scopes: [] })),
    (body, oauth2) => setPath(body, 'auth.oauth2', oauth2),
  ),
  breaker('output', hostileSchema, (body, schema) => setPath(body, 'output.schema', schema)),
  breaker('output', nonString, (body, type) => setPath(body, 'output.content_type', type)),
  breaker('inputs', badParameter, (body, added) => {
    if (Array.isArray(body.inputs)) body.inputs.push(added);
  }),
  breaker('inputs', fc.constant('duplicate'), (body) => {
    if (Array.isArray(body.inputs)) body.inputs.push(structuredClone(body.inputs[0]));
  }),
  breaker(
    'tags',
    fc.oneof(
      fc.constant(Array.from({ length: 51 }, (_, index) => `t${index}`)),
      longerThan(100).map((tag) => [tag]),
      fc.array(nonString, { minLength: 1, maxLength: 3 }),
    ),
    (body, tags) => own(body, 'tags', tags),
  ),
  breaker('documentation_url', notUri, (body, url) => own(body, 'documentation_url', url)),
  breaker(
    'created_at',
    fc.oneof(
      nonString,
      anyString.map((date) => `not-a-date ${date}`),
      fc.constantFrom('2025-02-30T00:00:00Z', '2025-01-01'),
    ),
    (body, date) => own(body, 'created_at', date),
  ),
  breaker('x-category', longerThan(100), (body, category) => own(body, 'x-category', category)),
  breaker('x-coercion', nonBoolean, (body, coercion) => own(body, 'x-coercion', coercion)),
  breaker('x-migrations', badMigrations, (body, migrations) => own(body, 'x-migrations', migrations)),
  breaker(
    'x-deprecated',
    fc.oneof(jsonValue, fc.constant({ message: 'x', deprecated_at: '2025-01-01T00:00:00Z' })),
    (body, value) => own(body, 'x-deprecated', value),
  ),
  breaker(
    'unknown',
    fc.tuple(
      keyOutside(Object.keys(DESCRIPTOR_TYPES)).filter((key) => !key.startsWith('x-')),
      fc.oneof(
        jsonValue,
        fc.integer({ min: 1, max: 10 }).map((depth) => protoNest(depth, 1)),
      ),
    ),
    (body, [key, value]) => own(body, key, value),
  ),
];
/** Prototype-named keys on every nested object the schema leaves open, and an `x-` extension on top. */
const invalidDescriptor = fc.stringMatching(/^[a-z0-9]{1,16}$/).chain((suffix) =>
  broken(
    () => ({ ...structuredClone(translateDescriptor), id: `fz.${suffix}` }) as Json,
    descriptorBreakers,
    noiseAt(
      ['', 'protocol', 'provider', 'endpoint', 'endpoint.retry', 'auth', 'output', 'inputs.0'],
      fc.constantFrom(...PROTO_KEYS, 'x-fuzz'),
    ),
    (where, key) => where === '' && key !== 'x-fuzz',
  ),
);

function registrationCases(): Case[] {
  const cases = sample(invalidDescriptor, 400).map((body) =>
    send('register/descriptor', 'POST', '/skills', json(body)),
  );
  for (const body of sample(fc.oneof(jsonValue, fc.object({ maxDepth: 3 })), 60)) {
    cases.push(send('register/any-json', 'POST', '/skills', json(body)));
  }
  // A valid descriptor under the id of a skill the workers host: 409, never registered.
  for (const [id, version] of sample(
    fc.tuple(fc.constantFrom(...HOSTED), fc.constantFrom('1.0.0', '2.0.0', '0.0.1-rc.1')),
    15,
  )) {
    cases.push(
      send('register/hosted-id', 'POST', '/skills', json({ ...translateDescriptor, id, version }), {
        expect: 409,
      }),
    );
  }
  return cases;
}

// ---------------------------------------------------------------- PUT and DELETE a deprecation

const invalidDeprecation = fc.oneof(
  nonObject.map(json),
  fc.oneof(nonString, longerThan(500)).map((message) => json({ message })),
  fc
    .tuple(keyOutside(['message']), jsonValue, fc.option(fc.string({ maxLength: 20 }), { nil: undefined }))
    .map(([key, value, message]) => json(own(message === undefined ? {} : { message }, key, value))),
  fc.constantFrom('{"message":"a","message":7}', '{"__proto__":{"message":"x"}}', '{"constructor":{}}'),
);
const validDeprecation = fc.oneof(
  fc.constant('{}'),
  fc.string({ unit: 'binary', maxLength: 100 }).map((message) => json({ message })),
);
/** A version segment that is not semver, or semver but not the hosted one. */
const otherVersion = fc.oneof(
  notSemver.map(percentEncode),
  fc.constantFrom('1.0.1', '2.0.0', '0.0.0', '1.0.0-rc.1', '1.0.0%2B1', '..', '%2F', '%ZZ'),
);
const anyVersion = fc.oneof(fc.constant(HOSTED_VERSION), otherVersion);
/** A skill and version that is not a hosted one. */
const wrongTarget = fc.oneof(
  fc.tuple(unknownSegment, anyVersion),
  fc.tuple(fc.constantFrom(...HOSTED), otherVersion),
);

function deprecationCases(): Case[] {
  const path = ([id, version]: [string, string]) => `/skills/${id}/versions/${version}/deprecation`;
  const cases = sample(fc.tuple(fc.tuple(anySkillSegment, anyVersion), invalidDeprecation), 150).map(
    ([target, body]) => send('deprecate/body', 'PUT', path(target), body),
  );
  for (const [target, body] of sample(fc.tuple(wrongTarget, validDeprecation), 100)) {
    cases.push(send('deprecate/target', 'PUT', path(target), body));
  }
  for (const target of sample(wrongTarget, 60))
    cases.push(send('undeprecate/target', 'DELETE', path(target)));
  return cases;
}

// ---------------------------------------------------------------- routes that do not exist

function unknownRouteCases(): Case[] {
  const known = ['skills', 'healthz', 'readyz', 'openapi.json', 'docs'];
  const first = unknownSegment.filter((segment) => !known.includes(decodeSegment(segment) ?? segment));
  const route = fc.oneof(
    fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.array(first, { minLength: 1, maxLength: 3 }),
      )
      .map(([method, segments]) => [method, `/${segments.join('/')}`] as const),
    fc
      .tuple(anySkillSegment, fc.array(unknownSegment, { minLength: 3, maxLength: 4 }))
      .map(([id, rest]) => ['GET', `/skills/${id}/${rest.join('/')}`] as const),
    fc
      .tuple(anySkillSegment, executionSegment)
      .chain(([id, execution]) =>
        fc.constantFrom(
          ['PATCH', '/skills'],
          ['PUT', '/skills'],
          ['DELETE', '/skills'],
          ['POST', '/healthz'],
          ['DELETE', '/readyz'],
          ['PUT', '/openapi.json'],
          ['GET', '//skills'],
          ['POST', `/skills/${id}`],
          ['DELETE', `/skills/${id}`],
          ['POST', `/skills/${id}/versions`],
          ['GET', `/skills/${id}/invoke`],
          ['PUT', `/skills/${id}/invoke`],
          ['POST', `/skills/${id}/status/${execution}`],
          ['DELETE', `/skills/${id}/result/${execution}`],
          ['POST', `/skills/${id}/versions/1.0.0/deprecation`],
          ['GET', `/skills/${id}/versions/1.0.0/deprecation`],
        ),
      ),
  );
  // Node itself answers 431 (no envelope) to a request line and headers over 16 KiB: stay under.
  return sample(
    route.filter(([, path]) => (path as string).length < 12_000),
    150,
  ).map(([method, path]) =>
    send(
      'route/unknown',
      method as string,
      path as string,
      method === 'GET' || method === 'DELETE' ? undefined : '{}',
    ),
  );
}

// ---------------------------------------------------------------- what every answer must be

function problemsWith(answer: RawAnswer, request: Pick<Case, 'expect'>): string[] {
  const problems: string[] = [];
  if (answer.status < 400 || answer.status > 499) problems.push(`status ${answer.status} is not a 4xx`);
  if (request.expect !== undefined && answer.status !== request.expect)
    problems.push(`expected ${request.expect}`);
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) problems.push(`content-type is "${type}"`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  const error = isPlainObject(body) ? body.error : undefined;
  if (!isPlainObject(error) || Object.keys(body as Json).length !== 1)
    return [...problems, 'the body is not {error: {...}}'];
  if (!isErrorCode(error.code)) problems.push(`code ${json(error.code)} is not in ErrorCatalog`);
  else if (httpStatusOf(error.code) !== answer.status)
    problems.push(`code ${error.code} is not HTTP ${answer.status}`);
  if (typeof error.recoverable !== 'boolean') problems.push('recoverable is not a boolean');
  if (typeof error.message !== 'string') problems.push('message is not a string');
  else if (error.message.length > 1000) problems.push(`message is ${error.message.length} chars long`);
  if (/\n\s+at |\.[cm]?[jt]s:\d+:\d+/.test(`${error.message} ${json(error.details)}`))
    problems.push('a stack trace shows');
  return problems;
}

interface Failure {
  request: Case;
  answer?: RawAnswer;
  problems: string[];
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;

function describeFailure({ request, answer }: Failure): string {
  const headers = request.headers ? ` ${json(request.headers)}` : '';
  const body = request.body === undefined ? '' : ` ${clip(request.body.toString(), 200)}`;
  const got = answer ? `${answer.status} ${clip(answer.text, 300)}` : 'no answer';
  return `${request.method} ${clip(request.path, 200)}${headers}${body}\n    → ${got}`;
}

/** Failures grouped by label and problems, most frequent first, each with its first request. */
function report(failures: Failure[], total: number): string {
  const groups = new Map<string, Failure[]>();
  for (const failure of failures) {
    const key = `${failure.request.label}: ${failure.problems.join('; ').replace(/\d+ chars/, 'N chars')}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  const sorted = [...groups].sort((a, b) => b[1].length - a[1].length);
  return [
    `${failures.length} of ${total} requests got a wrong answer (seed ${SEED}), ${groups.size} kinds:`,
    ...sorted
      .slice(0, 12)
      .map(([key, each]) => `${each.length} × ${key}\n  e.g. ${describeFailure(each[0] as Failure)}`),
    ...(sorted.length > 12 ? [`... and ${sorted.length - 12} more kinds`] : []),
  ].join('\n');
}

// ---------------------------------------------------------------- the tests

describe('fuzzing the gateway: invalid requests get a 4xx in the error envelope, and nothing else happens', () => {
  let system: TestSystem;
  let redis: Redis;
  let idsBefore: string[];

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker();
    redis = new Redis(system.redis.url);
    idsBefore = (await redis.zrange('{skillrun}:registry:ids', 0, -1)).sort();
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  const ask = async (request: RawRequest) => {
    const agent = keepAliveAgent(1);
    try {
      return await rawRequest(system.gateway.url, request, agent);
    } finally {
      agent.destroy();
    }
  };

  it('serves its OpenAPI document, and Swagger UI from itself (no CDN)', async () => {
    const document = await system.client.request<{ openapi: string }>('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.body.openapi).toBe('3.1.0');
    const docs = await fetch(`${system.gateway.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await docs.text();
    expect(html).toMatch(/swagger-ui/i);
    expect(html).not.toMatch(/unpkg\.com|cdn\.jsdelivr\.net/);
    // Its scripts and styles come from the gateway too.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map(
      (match) => match[1] as string,
    );
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const url = new URL(asset, `${system.gateway.url}/docs/`);
      expect(url.origin, asset).toBe(system.gateway.url);
      expect((await fetch(url)).status, asset).toBe(200);
    }
  });

  it('answers thousands of malformed, oversized, deep and type-confused requests with the envelope', async () => {
    expect(idsBefore).toEqual(expect.arrayContaining(HOSTED));
    for (const id of HOSTED) {
      const hosted = await system.client.request<{ version: string }>(`/skills/${id}`);
      expect(hosted.body.version, `generators assume every fixture skill is at ${HOSTED_VERSION}`).toBe(
        HOSTED_VERSION,
      );
    }
    const cases = [
      ...invokeCases(),
      ...rawBodyCases(),
      ...mediaTypeCases(),
      ...searchCases(),
      ...readCases(),
      ...registrationCases(),
      ...deprecationCases(),
      ...unknownRouteCases(),
    ];
    const agent = keepAliveAgent(CONCURRENCY);
    const started = performance.now();
    const failures: Failure[] = [];
    try {
      await mapBounded(cases, CONCURRENCY, async (request) => {
        try {
          const answer = await rawRequest(system.gateway.url, request, agent);
          const problems = problemsWith(answer, request);
          if (problems.length === 0) return;
          failures.push({ request, answer, problems });
        } catch (error) {
          failures.push({ request, problems: [`no answer: ${(error as Error).message}`] });
        }
      });
    } finally {
      agent.destroy();
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.info(`fuzz: ${cases.length} requests in ${seconds} s (seed ${SEED})`);
    expect(cases.length).toBeGreaterThan(2500);
    expect(failures.length, report(failures, cases.length)).toBe(0);
  });

  it('registered nothing, enqueued nothing, deprecated nothing, and still serves', async () => {
    expect((await redis.zrange('{skillrun}:registry:ids', 0, -1)).sort()).toEqual(idsBefore);
    const listed = await system.client.request<{ skills: { id: string }[] }>('/skills?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.skills.map((skill) => skill.id).sort()).toEqual(HOSTED.toSorted());
    expect(await redis.keys('{skillrun}:exec:*')).toEqual([]);
    for (const id of HOSTED) {
      const versions = await system.client.request<{ versions: { deprecated?: unknown }[] }>(
        `/skills/${id}/versions`,
      );
      expect(
        versions.body.versions.map((version) => version.deprecated),
        id,
      ).toEqual([undefined]);
    }
    expect((await system.client.request('/healthz')).status).toBe(200);
    const { final } = await system.client.run('echo', { text: 'still here' });
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ text: 'still here' });
  });

  describe('what the fuzzer once found', () => {
    it('a malformed percent-escape in a path parameter is a 4xx, not a 500', async () => {
      for (const path of ['/skills/%ZZ', '/skills/%E0%A4%A/versions', '/skills/echo/status/%ZZ']) {
        expect(problemsWith(await ask({ method: 'GET', path }), {}), path).toEqual([]);
      }
    });

    it('a body that is not what its Content-Encoding says is a 400, not a 500', async () => {
      const answer = await ask({
        method: 'POST',
        path: INVOKE,
        headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
        body: json(validEnvelope()),
      });
      expect(problemsWith(answer, { expect: 400 })).toEqual([]);
    });

    it('no error message is longer than 1000 chars, however long the id or path', async () => {
      const paths = [
        `/skills/${'z'.repeat(2000)}`,
        `/skills/echo/status/${'x'.repeat(2000)}`,
        `/${'a'.repeat(2000)}`,
      ];
      for (const path of paths)
        expect(problemsWith(await ask({ method: 'GET', path }), {}), path).toEqual([]);
      const extras = Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`extra_${index}`.padEnd(40, '_'), 1]),
      );
      const many = await ask(
        send('', 'POST', INVOKE, json({ ...validEnvelope(), inputs: { text: 'x', ...extras } })),
      );
      expect(problemsWith(many, {})).toEqual([]);
    });
  });
});
