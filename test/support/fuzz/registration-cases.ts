import fc from 'fast-check';
import { translateDescriptor } from '../descriptors';
import { broken, jsonValue, noiseAt } from './arbitraries';
import { descriptorBreakers } from './descriptor-breakers';
import { type Case, HOSTED, type Json, json, PROTO_KEYS, sample, send } from './fuzz-tools';

// POST /skills (registration)

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

export function registrationCases(): Case[] {
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
