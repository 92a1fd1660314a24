import type { AuthConfig, Execution, Principal } from '@skillrun/core';
import { authOf, type ExecutionStore, type SkillRegistry } from '@skillrun/core/data';
import { readable } from '../executions/readable-execution';
import type { RequestHeaders } from '../http/request-headers';
import type { Identities } from './identities';
import { type Identity, principalOf } from './identity';

export interface ExecutionIdentityDeps {
  store: ExecutionStore;
  identities: Identities;
  registry: SkillRegistry;
  defaultAuth: AuthConfig;
}

/**
 * Who reads or cancels an execution: the credentials in X-API-Key or Authorization, or else those
 * in the header its skill's auth names, where a spec-001 consumer sends them on every call (another
 * skillrun calling this one as its provider does). The skill is looked up only then: an anonymous
 * request for an execution that has an owner.
 */
export class ExecutionIdentity {
  constructor(private readonly deps: ExecutionIdentityDeps) {}

  /**
   * The execution of this skill as the request's caller may see it, and who that caller is: 404
   * EXECUTION_NOT_FOUND for one that does not exist or is not theirs (readable-execution.ts).
   */
  async read(
    skillId: string,
    executionId: string,
    headers: RequestHeaders,
  ): Promise<{ execution: Execution; principal: Principal | undefined }> {
    const [record, found] = await Promise.all([
      this.deps.store.records.read(executionId),
      this.deps.identities.of(headers),
    ]);
    const identity = await this.refine(found, headers, {
      skillId,
      version: record?.execution.skill_version ?? '',
      owned: record?.owner !== null && record?.owner !== undefined,
    });
    const principal = principalOf(identity);
    return { execution: readable(record, skillId, executionId, principal), principal };
  }

  /** `identity` (what identify found), or else the one in the header the execution's skill names. */
  private async refine(
    identity: Identity,
    headers: RequestHeaders,
    execution: { skillId: string; version: string; owned: boolean },
  ): Promise<Identity> {
    const { identities, registry, defaultAuth } = this.deps;
    if (identity.kind !== 'anonymous' || !execution.owned) return identity;
    const entry = (await registry.versions(execution.skillId)).find(
      (each) => each.version === execution.version,
    );
    const header = entry && authOf(entry, defaultAuth).header;
    return header ? identities.of(headers, { header }) : identity;
  }
}
