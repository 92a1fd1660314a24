import fc from 'fast-check';
import { anySkillSegment, executionSegment, unknownSegment } from './arbitraries';
import { type Case, decodeSegment, sample, send } from './fuzz-tools';

// Routes that do not exist

export function unknownRouteCases(): Case[] {
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
