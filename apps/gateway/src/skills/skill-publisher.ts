import {
  assertSafeSchema,
  checkMigrations,
  type Principal,
  SchemaValidator,
  SemVer,
  SkillDescriptor,
  SkillError,
  type SkillSchemas,
  toInputSchema,
} from '@skillrun/core';
import {
  ProviderCredentials,
  type ProviderCredentialsStore,
  type RegistryVersion,
  registeredEntry,
  type SkillRegistry,
} from '@skillrun/core/data';
import { assertRole } from '../auth/assert-role';
import { type Identity, isAdmin } from '../auth/identity';
import { assertMayPublish, assertOwns, notOwner } from '../auth/namespace-ownership';
import { authRequired } from '../auth/skill-access';

export interface PublishResult {
  descriptor: SkillDescriptor;
  created: boolean;
}

const descriptorValidator = new SchemaValidator(SkillDescriptor, 'skill descriptor');
const versionValidator = new SchemaValidator(SemVer, 'version');
const credentialsValidator = new SchemaValidator(ProviderCredentials, 'provider credentials');

/**
 * Registers descriptors of skills hosted elsewhere, and deprecates versions. Every check happens
 * before anything is stored: the descriptor's shape, its schemas (compilable, not hostile), its
 * migrations. Published versions are immutable.
 */
export class SkillPublisher {
  constructor(
    private readonly registry: SkillRegistry,
    private readonly schemas: SkillSchemas,
    /** Where the credentials for registered skills' providers go; absent without PROVIDER_SECRETS_KEY. */
    private readonly credentials?: ProviderCredentialsStore,
  ) {}

  /**
   * Sets (or with null, removes) what this service presents to the provider of a registered skill
   * (all its versions). Never shown again: the answer is 204.
   */
  async setCredentials(skillId: string, body: unknown, identity: Identity): Promise<void> {
    const principal = assertMayPublish(skillId, identity);
    if (!this.credentials) {
      throw new SkillError(
        'NOT_CONFIGURED',
        'Provider credentials need PROVIDER_SECRETS_KEY on the gateways and workers',
      );
    }
    const versions = await this.registry.versions(skillId);
    if (!versions.some((version) => version.source === 'registered')) {
      throw new SkillError('SKILL_NOT_FOUND', `"${skillId}" is not a skill registered from elsewhere`);
    }
    assertOwns(
      skillId,
      versions.map((version) => version.owner),
      principal,
    );
    if (body === null) {
      await this.credentials.remove(skillId);
      return;
    }
    await this.credentials.set(skillId, credentialsValidator.parse(body));
  }

  async register(body: unknown, identity: Identity): Promise<PublishResult> {
    const descriptor = descriptorValidator.parse(body);
    const principal = assertMayPublish(descriptor.id, identity);
    this.check(descriptor);
    const admin = isAdmin(principal);
    const owner = admin ? ((await this.ownerOf(descriptor.id)) ?? principal.callerId) : principal.callerId;
    const entry = registeredEntry(descriptor, new Date().toISOString(), owner);
    // Another caller's versions refuse it in the same script that writes it (one decision).
    const outcome = await this.registry.register(entry, admin);
    const name = `${descriptor.id}@${descriptor.version}`;
    if (outcome === 'foreign') throw notOwner(descriptor.id);
    if (outcome === 'conflict') {
      throw new SkillError('SKILL_VERSION_CONFLICT', `${name} is already published with other content`, {
        suggestedAction: 'Published versions are immutable: publish the change as a new version',
      });
    }
    if (outcome === 'hosted') {
      throw new SkillError(
        'SKILL_VERSION_CONFLICT',
        `"${descriptor.id}" is a skill this service's workers host; register under another id`,
      );
    }
    return { descriptor, created: outcome === 'created' };
  }

  /** Deprecates (message) or undeprecates (null) one version; SKILL_NOT_FOUND if it is not there. */
  async deprecate(
    skillId: string,
    version: string,
    message: string | null,
    identity: Identity,
    shown: (versions: RegistryVersion[], viewer: Principal) => RegistryVersion[],
  ): Promise<RegistryVersion> {
    const viewer = assertMayPublish(skillId, identity);
    versionValidator.parse(version, '/version');
    const current = shown(await this.registry.versions(skillId), viewer).find(
      (each) => each.version === version,
    );
    if (!current) throw new SkillError('SKILL_NOT_FOUND', `No available version ${version} of "${skillId}"`);
    assertOwns(skillId, [current.owner], viewer);
    const deprecation = message === null ? null : { message, deprecated_at: new Date().toISOString() };
    await this.registry.deprecate(skillId, version, deprecation);
    const { deprecation: _previous, ...rest } = current;
    return deprecation ? { ...rest, deprecation } : rest;
  }

  /**
   * Forgets that a hosted version's pool scales to zero, once the pool is gone: with no worker the
   * version is then unavailable, as any hosted version is. Admin only (hosted ids have no owner).
   */
  async forgetDormant(skillId: string, version: string, identity: Identity): Promise<void> {
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, 'Forgetting a dormant version needs an admin credential');
    }
    assertRole(identity.principal, 'admin', 'Forgetting a dormant version');
    versionValidator.parse(version, '/version');
    const outcome = await this.registry.forgetDormant(skillId, version);
    const name = `${skillId}@${version}`;
    if (outcome === 'hosted') {
      throw new SkillError('SKILL_VERSION_CONFLICT', `${name} is still hosted by a live worker`, {
        suggestedAction:
          'Stop its pool first: a worker with WORKER_SCALE_TO_ZERO marks its versions again at every heartbeat',
      });
    }
    if (outcome === 'absent') {
      throw new SkillError('SKILL_NOT_FOUND', `${name} is not kept for a pool that scales to zero`);
    }
  }

  /**
   * Whose an id is: the owner of its versions. A version an admin adds to an owned id is recorded
   * as the owner's, so the owner keeps changing all of them.
   */
  private async ownerOf(skillId: string): Promise<string | undefined> {
    return (await this.registry.versions(skillId)).find((version) => version.owner !== undefined)?.owner;
  }

  private check(descriptor: SkillDescriptor): void {
    if (descriptor['x-deprecated'] !== undefined) {
      throw invalid(
        '/x-deprecated',
        'is set by the registry; use PUT /skills/{id}/versions/{version}/deprecation',
      );
    }
    if (descriptor['x-dormant'] !== undefined) {
      throw invalid('/x-dormant', 'is set by the registry for hosted versions whose pool scales to zero');
    }
    for (const field of ['x-concurrency', 'x-rate_limit'] as const) {
      if (descriptor[field] !== undefined) {
        throw invalid(
          `/${field}`,
          "comes from a hosted skill's skill.json; a registered skill's provider applies its own",
        );
      }
    }
    if (descriptor['x-paused'] !== undefined) {
      throw invalid('/x-paused', 'is set by the registry while an operator pauses the skill');
    }
    descriptor.inputs.forEach((parameter, index) => {
      if (descriptor.inputs.findIndex((other) => other.name === parameter.name) !== index) {
        throw invalid(`/inputs/${index}/name`, `"${parameter.name}" is declared twice`);
      }
    });
    const said = Object.keys(descriptor['x-inputs_schema'] ?? {}).find((keyword) =>
      ['type', 'properties', 'required'].includes(keyword),
    );
    if (said) throw invalid(`/x-inputs_schema/${said}`, 'belongs in inputs');
    checkMigrations(descriptor.version, descriptor['x-migrations'] ?? [], '/x-migrations');
    const inputSchema = toInputSchema(descriptor);
    for (const [schema, path] of [
      [inputSchema, '/inputs'],
      [descriptor.output.schema, '/output/schema'],
    ] as const) {
      assertSafeSchema(schema, path);
      try {
        this.schemas.compile(schema);
      } catch (error) {
        throw invalid(path, (error as Error).message);
      }
    }
  }
}

function invalid(path: string, message: string): SkillError {
  return new SkillError(
    'INVALID_INPUT',
    `Invalid skill descriptor: [${path.split('/').filter(Boolean).join(' -> ')}] ${message}`,
    {
      details: [{ path, message }],
    },
  );
}
