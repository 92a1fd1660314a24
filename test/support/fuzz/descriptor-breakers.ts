import { SemVer } from '@skillrun/core';
import fc from 'fast-check';
import { REQUIRED_DESCRIPTOR_FIELDS } from '../descriptors';
import {
  anyString,
  breaker,
  jsonValue,
  keyOutside,
  longerThan,
  nonBoolean,
  nonObject,
  nonString,
} from './arbitraries';
import { type Json, own, protoNest, removePath, setPath } from './fuzz-tools';

// POST /skills (registration): what breaks a descriptor

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
export const notSemver = fc
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

export const descriptorBreakers = [
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
