import { toInputSchema } from '../descriptor/parameters';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { RegistryEntry } from '../store/registry-entry';

/** What launching an execution of a version needs of it, hosted here or registered from elsewhere. */
export interface RunTarget {
  skill: Pick<SkillDefinition, 'name' | 'version' | 'retry' | 'input' | 'queue_timeout' | 'concurrency'>;
  /** Registered from elsewhere: a worker calls its provider, retrying as its endpoint says. */
  remote?: { retryBackoffMs: number };
}

export function runTargetOf(entry: RegistryEntry): RunTarget {
  if (entry.source === 'hosted') return { skill: entry.definition };
  const { descriptor } = entry;
  return {
    skill: {
      name: descriptor.id,
      version: descriptor.version,
      retry: Math.max(0, descriptor.endpoint.retry.max_attempts - 1),
      input: toInputSchema(descriptor),
    },
    remote: { retryBackoffMs: descriptor.endpoint.retry.backoff_ms },
  };
}
