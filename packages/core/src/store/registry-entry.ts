import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { ApprovalPolicy } from '../schemas/approval';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { Deprecation, SkillDescriptor, SkillPublication } from '../schemas/skill-descriptor';

interface EntryBase {
  id: string;
  version: string;
  /** sha256 of the content in canonical JSON: equal content, equal digest. */
  digest: string;
  registered_at: string;
  /** The caller who registered it (owners see their private skills); hosted skills have none. */
  owner?: string;
}

/** A version served by this service's workers: its skill.json and its descriptor.json. */
export interface HostedEntry extends EntryBase {
  source: 'hosted';
  definition: SkillDefinition;
  publication: SkillPublication;
}

/** A version hosted elsewhere, registered through POST /skills with its full descriptor. */
export interface RegisteredEntry extends EntryBase {
  source: 'registered';
  descriptor: SkillDescriptor;
}

export type RegistryEntry = HostedEntry | RegisteredEntry;

/** A version as the registry sees it now: whether it can run, and whether it is deprecated. */
export type RegistryVersion = RegistryEntry & {
  available: boolean;
  /**
   * Hosted, and its workers' leases lapsed a moment ago without their leaving (a crash, or Redis or
   * the network away): presumed back soon, so not yet forgotten.
   */
  lapsed?: boolean;
  /**
   * Hosted by a pool that scales to zero, and no worker holds a lease on it now: available all the
   * same, its executions wait in its queue for the pool's first worker.
   */
  dormant?: boolean;
  deprecation?: Deprecation;
  /** An operator's approval policy for the skill (PUT /skills/{id}/approval): wins over its own. */
  operatorApproval?: OperatorApproval;
};

/** An operator's approval policy for every version of a skill, who set it and when. */
export interface OperatorApproval {
  approval: ApprovalPolicy;
  set_by: string;
  set_at: string;
}

export function contentDigest(content: unknown): string {
  return createHash('sha256')
    .update(stringify(content) ?? '')
    .digest('base64url');
}

export function hostedEntry(
  definition: SkillDefinition,
  publication: SkillPublication,
  registeredAt: string,
): HostedEntry {
  return {
    source: 'hosted',
    id: definition.name,
    version: definition.version,
    digest: contentDigest({ definition, publication }),
    registered_at: registeredAt,
    definition,
    publication,
  };
}

export function registeredEntry(
  descriptor: SkillDescriptor,
  registeredAt: string,
  owner?: string,
): RegisteredEntry {
  return {
    source: 'registered',
    id: descriptor.id,
    version: descriptor.version,
    digest: contentDigest(descriptor),
    registered_at: registeredAt,
    ...(owner === undefined ? {} : { owner }),
    descriptor,
  };
}
