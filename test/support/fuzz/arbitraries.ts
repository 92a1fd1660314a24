import fc from 'fast-check';
import {
  at,
  decodeSegment,
  HOSTED,
  isPlainObject,
  type Json,
  own,
  PROTO_KEYS,
  percentEncode,
  picksHosted,
  protoNest,
} from './fuzz-tools';

// Arbitraries shared by the fuzz cases.

export const anyString = fc.oneof(
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
export const jsonValue = fc.jsonValue({ maxDepth: 3 });
export const nonObject = fc.oneof(
  anyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(jsonValue, { maxLength: 3 }),
);
export const nonString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(jsonValue, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), jsonValue, { maxKeys: 3 }),
);
export const nonBoolean = fc.oneof(
  anyString,
  fc.integer(),
  fc.constant(null),
  fc.array(fc.boolean(), { maxLength: 2 }),
);
export const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -(2 ** 63),
  2 ** 64,
  1e21,
);
/** More than `max` code points, whatever the random tail holds. */
export const longerThan = (max: number) =>
  fc.string({ unit: 'binary', maxLength: 200 }).map((tail) => `${'x'.repeat(max + 1)}${tail}`);
/** A key outside `known`: prototype names, unicode, empty, or very long. */
export const keyOutside = (known: readonly string[]) =>
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
export const unknownSegment = fc
  .oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(percentEncode) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(percentEncode) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: 6000 }).map((length) => 'z'.repeat(length)) },
  )
  .filter((segment) => !HOSTED.includes(decodeSegment(segment) ?? segment));
export const anySkillSegment = fc.oneof(unknownSegment, fc.constantFrom(...HOSTED));
export const executionSegment = fc.oneof(
  fc.uuid(),
  fc.constantFrom('00000000-0000-4000-8000-000000000000', '..', '%2F', '%ZZ', '__proto__', 'x'.repeat(5000)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(percentEncode),
);
/** A `?version=` value that cannot pick a hosted version: not a range, empty, too long, or matching nothing. */
export const versionNotPickingHosted = fc
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
export const breaker = <T>(field: string, value: fc.Arbitrary<T>, apply: (body: Json, value: T) => void) =>
  value.map((drawn): Breaker => ({ field, apply: (body) => apply(body, drawn) }));

/** A valid body, then noise where the schema allows extra keys (never where a breaker acts), then 1-3 breakers. */
export const broken = (
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

export const noiseAt = (places: string[], keys: fc.Arbitrary<string>) =>
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
