import type { SkillDefinition } from '../schemas/skill-definition';
import type {
  AccessPolicy,
  AuthConfig,
  CapabilityType,
  SkillDescriptor,
  SkillPublication,
} from '../schemas/skill-descriptor';
import { capabilityTypeOf } from '../schemas/skill-kind';
import type { RegistryVersion } from '../store/registry-entry';
import { toDescriptorInputs } from './parameters';

export const PROTOCOL_VERSION = '1.0.0';

/** What a gateway knows that skill.json does not: where it is, and the defaults for descriptor.json. */
export interface DescriptorContext {
  /** The public base URL of the gateway, e.g. https://skills.example.com */
  baseUrl: string;
  provider: { name: string; url?: string; contact?: string };
  retryBackoffMs: number;
  defaults: { access: AccessPolicy; capabilityType: CapabilityType; auth: AuthConfig };
}

/** The URLs of a hosted skill's invocation endpoint on this gateway. */
export function skillUrls(baseUrl: string, skillId: string) {
  const root = `${baseUrl.replace(/\/+$/, '')}/skills/${encodeURIComponent(skillId)}`;
  return {
    skill: root,
    invoke: `${root}/invoke`,
    status: `${root}/status/{execution_id}`,
    result: `${root}/result/{execution_id}`,
    cancel: `${root}/cancel/{execution_id}`,
    events: `${root}/events/{execution_id}`,
  };
}

/**
 * The Skill Descriptor (spec 000) that a hosted skill.json is published as: descriptor.json's
 * fields where it has them, the gateway's defaults where not. Its endpoint runs this very version.
 */
export function toSkillDescriptor(
  skill: SkillDefinition,
  context: DescriptorContext,
  publication: SkillPublication = {},
  createdAt?: string,
): SkillDescriptor {
  const urls = skillUrls(context.baseUrl, skill.name);
  const { defaults } = context;
  return {
    protocol: { version: PROTOCOL_VERSION },
    id: skill.name,
    name: skill.name,
    version: skill.version,
    capability_type: publication.capability_type ?? capabilityTypeOf(skill.mode, defaults.capabilityType),
    description: skill.description,
    provider: publication.provider ?? { url: context.baseUrl, ...context.provider },
    endpoint: {
      url: `${urls.invoke}?version=${encodeURIComponent(skill.version)}`,
      method: 'POST',
      content_type: 'application/json',
      status_url: urls.status,
      result_url: urls.result,
      'x-cancel_url': urls.cancel,
      'x-events_url': urls.events,
      timeout_ms: Math.ceil(skill.timeout),
      retry: { max_attempts: skill.retry + 1, backoff_ms: context.retryBackoffMs },
    },
    ...toDescriptorInputs(skill.input),
    output: { content_type: 'application/json', schema: skill.output },
    auth: publication.auth ?? defaults.auth,
    access: publication.access ?? defaults.access,
    tags: skill.tags,
    ...(publication.documentation_url ? { documentation_url: publication.documentation_url } : {}),
    ...(createdAt ? { created_at: createdAt } : {}),
    'x-category': skill.category,
    ...(publication['x-coercion'] === undefined ? {} : { 'x-coercion': publication['x-coercion'] }),
    ...(publication['x-migrations'] ? { 'x-migrations': publication['x-migrations'] } : {}),
    ...(skill.concurrency ? { 'x-concurrency': skill.concurrency } : {}),
    ...(skill.rate_limit ? { 'x-rate_limit': skill.rate_limit } : {}),
  };
}

/** A registry version as consumers see it, with `x-deprecated` and `x-dormant` when it is. */
export function describeVersion(version: RegistryVersion, context: DescriptorContext): SkillDescriptor {
  const descriptor =
    version.source === 'registered'
      ? version.descriptor
      : toSkillDescriptor(version.definition, context, version.publication, version.registered_at);
  return {
    ...descriptor,
    ...(version.deprecation ? { 'x-deprecated': version.deprecation } : {}),
    ...(version.dormant ? { 'x-dormant': true as const } : {}),
  };
}
