import fc from 'fast-check';
import { anyString, keyOutside, longerThan } from './arbitraries';
import { base64url, type Case, json, percentEncode, sample, send } from './fuzz-tools';

// GET /skills (search)

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

export function searchCases(): Case[] {
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
