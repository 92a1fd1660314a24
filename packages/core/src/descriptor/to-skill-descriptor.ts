import type { SkillDefinition } from '../schemas/skill-definition';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { toParameterDefinitions } from './parameters';

export const PROTOCOL_VERSION = '1.0.0';

export interface DescriptorContext {
  /** The public base URL of the gateway, e.g. https://skills.example.com */
  baseUrl: string;
  providerName: string;
  retryBackoffMs: number;
}

/** The URLs of a hosted skill's invocation endpoint on this gateway. */
export function skillUrls(baseUrl: string, skillId: string) {
  const root = `${baseUrl.replace(/\/+$/, '')}/skills/${encodeURIComponent(skillId)}`;
  return {
    invoke: `${root}/invoke`,
    status: `${root}/status/{execution_id}`,
    result: `${root}/result/{execution_id}`,
  };
}

/** The Skill Descriptor (spec 000) that a hosted skill.json is published as. */
export function toSkillDescriptor(skill: SkillDefinition, context: DescriptorContext): SkillDescriptor {
  const urls = skillUrls(context.baseUrl, skill.name);
  return {
    protocol: { version: PROTOCOL_VERSION },
    id: skill.name,
    name: skill.name,
    version: skill.version,
    capability_type: 'api',
    description: skill.description,
    provider: { name: context.providerName, url: context.baseUrl },
    endpoint: {
      url: urls.invoke,
      method: 'POST',
      content_type: 'application/json',
      status_url: urls.status,
      result_url: urls.result,
      timeout_ms: Math.ceil(skill.timeout),
      retry: { max_attempts: skill.retry + 1, backoff_ms: context.retryBackoffMs },
    },
    inputs: toParameterDefinitions(skill.input),
    output: { content_type: 'application/json', schema: skill.output },
    auth: { type: 'none' },
    access: 'public',
    tags: skill.tags,
  };
}
