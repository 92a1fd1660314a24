import fc from 'fast-check';
import {
  anySkillSegment,
  jsonValue,
  keyOutside,
  longerThan,
  nonObject,
  nonString,
  unknownSegment,
} from './arbitraries';
import { notSemver } from './descriptor-breakers';
import { type Case, HOSTED, HOSTED_VERSION, json, own, percentEncode, sample, send } from './fuzz-tools';

// PUT and DELETE a deprecation

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

export function deprecationCases(): Case[] {
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
