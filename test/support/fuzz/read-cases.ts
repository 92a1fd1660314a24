import fc from 'fast-check';
import {
  anySkillSegment,
  anyString,
  executionSegment,
  unknownSegment,
  versionNotPickingHosted,
} from './arbitraries';
import { type Case, HOSTED, percentEncode, sample, send } from './fuzz-tools';

// GET a skill, its versions, an execution

export function readCases(): Case[] {
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
  // Asked to wait, an execution that cannot be read is answered at once, and a bad ?wait= is a 400.
  const waits = fc.tuple(
    execution,
    fc.oneof(
      fc.constantFrom('', '?wait=5', '?wait=3600', '?wait=abc', '?wait=-1', '?wait=1.5', '?wait=3601'),
      fc.constantFrom('?wait=', '?wait=1&wait=2', '?wait=5&other=1', '?__proto__=1'),
      anyString.map((value) => `?wait=${percentEncode(value)}`),
    ),
    fc.constantFrom(
      undefined,
      'wait=5',
      'wait=3600',
      'WAIT="2"; x=y',
      'wait=abc',
      'wait=-1',
      'respond-async',
    ),
  );
  for (const [[id, executionId, step], query, prefer] of sample(waits, 150)) {
    const headers = prefer === undefined ? {} : { headers: { prefer } };
    cases.push(
      send(`${step}/wait`, 'GET', `/skills/${id}/${step}/${executionId}${query}`, undefined, headers),
    );
  }
  return cases;
}
