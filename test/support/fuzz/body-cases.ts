import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  BODY_LIMIT,
  type Case,
  DEPRECATE_ECHO,
  INVOKE,
  JSON_TYPE,
  json,
  MAX_DEPTH,
  sample,
  send,
} from './fuzz-tools';
import { validEnvelope } from './invoke-cases';

// Bodies: not JSON, too deep, too big, wrong type

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

export function rawBodyCases(): Case[] {
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

export function mediaTypeCases(): Case[] {
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
