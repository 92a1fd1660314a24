import fc from 'fast-check';
import {
  anyString,
  breaker,
  broken,
  hugeNumber,
  jsonValue,
  keyOutside,
  longerThan,
  noiseAt,
  nonObject,
  nonString,
  unknownSegment,
  versionNotPickingHosted,
} from './arbitraries';
import {
  type Case,
  decodeSegment,
  INVOKE,
  isPlainObject,
  type Json,
  json,
  own,
  percentEncode,
  removePath,
  sample,
  send,
  setPath,
} from './fuzz-tools';

// POST /skills/{id}/invoke

export const validEnvelope = (): Json => ({
  caller: { id: 'fuzzer', type: 'service' },
  skill_id: 'echo',
  inputs: { text: 'ok' },
});
/** A context.debounce object that breaks one of its rules: its key, its delay, its mode, a key of its own. */
const brokenDebounce = fc.oneof(
  fc.record({ key: fc.oneof(nonString, fc.constant(''), longerThan(256)), delay_ms: fc.constant(100) }),
  fc.record({
    key: fc.constant('k'),
    delay_ms: fc.oneof(
      fc.integer().filter((ms) => ms < 1 || ms > 86_400_000),
      fc.double().filter((ms) => !Number.isInteger(ms)),
      fc.constantFrom('100', null, true, [], {}),
      hugeNumber,
    ),
  }),
  fc.record({
    key: fc.constant('k'),
    delay_ms: fc.constant(100),
    mode: jsonValue.filter((mode) => !['trailing', 'leading'].includes(mode as string)),
  }),
  fc.record({ delay_ms: fc.constant(100) }),
  fc.record({ key: fc.constant('k') }),
  fc.tuple(keyOutside(['key', 'delay_ms', 'mode']), jsonValue).map(([extra, value]) => {
    const debounce: Json = { key: 'k', delay_ms: 100 };
    own(debounce, extra, value);
    return debounce;
  }),
);
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
      fc.record({
        delay_ms: fc.oneof(
          fc.integer({ max: -1 }),
          fc.double().filter((ms) => !Number.isInteger(ms)),
          fc.constantFrom('100', null, true, [], {}),
          hugeNumber,
        ),
      }),
      fc.record({
        run_at: fc.oneof(
          nonString,
          anyString.map((when) => `not-a-date ${when}`),
          fc.constantFrom(
            '2025-13-01T00:00:00Z',
            '2025-01-01T00:00:00',
            '2025-01-01',
            '9999-01-01T00:00:00Z',
          ),
        ),
      }),
      fc.record({ delay_ms: fc.nat(1000), run_at: fc.constant('2025-01-01T00:00:00Z') }),
      fc.record({ concurrency_key: fc.oneof(nonString, fc.constant(''), longerThan(256)) }),
      fc.record({ debounce: fc.oneof(nonObject, brokenDebounce) }),
      // A debounce says when the execution starts: a delay or a time besides it is refused.
      fc.record({
        debounce: fc.constant({ key: 'k', delay_ms: 100 }),
        delay_ms: fc.nat(1000),
      }),
      fc.record({
        debounce: fc.constant({ key: 'k', delay_ms: 100 }),
        run_at: fc.constant('2025-01-01T00:00:00Z'),
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
  context: [
    'trace_id',
    'priority',
    'timeout_ms',
    'queue_timeout_ms',
    'delay_ms',
    'run_at',
    'concurrency_key',
    'debounce',
  ],
};
const invalidEnvelope = broken(
  () => ({ ...validEnvelope(), context: { priority: 'low' } }),
  invokeBreakers,
  noiseAt(['', 'caller', 'context'], keyOutside([])),
  (where, key) => ENVELOPE_KEYS[where]?.includes(key) ?? true,
);

export function invokeCases(): Case[] {
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
