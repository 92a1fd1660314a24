import type { SkillDescriptor } from '@skillrun/client';

/**
 * The least descriptor the client reads, as its unit tests give it: skill `x` of a provider at
 * `origin`, no inputs, its status and result URLs templates, one attempt per call.
 */
export function descriptorAt(
  origin: string,
  auth: SkillDescriptor['auth'] = { type: 'none' },
): SkillDescriptor {
  return {
    protocol: { version: '1.0.0' },
    id: 'x',
    name: 'x',
    version: '1.0.0',
    capability_type: 'api',
    description: '',
    provider: { name: 'p' },
    endpoint: {
      url: `${origin}/x/invoke`,
      status_url: `${origin}/x/status/{execution_id}`,
      result_url: `${origin}/x/result/{execution_id}`,
      retry: { max_attempts: 1, backoff_ms: 1 },
    },
    inputs: [],
    output: { content_type: 'application/json', schema: {} },
    auth,
    access: 'public',
  };
}
