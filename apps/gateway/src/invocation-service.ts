import {
  type AuthConfig,
  authOf,
  coercionOf,
  type Deprecation,
  type Execution,
  type ExecutionLauncher,
  InvocationRequest,
  type LaunchRequest,
  migrateInputs,
  newJobPayload,
  newTraceId,
  parseVersionRange,
  type RegistryEntry,
  SchemaValidator,
  SkillError,
  type SkillResolver,
  type SkillSchemas,
  type SlotClaim,
} from '@skillrun/core';
import type { CredentialSources } from './auth/authenticator';
import { type Identity, principalOf } from './auth/identity';
import type { SkillAccess } from './auth/skill-access';
import type { CallerLimits, ReportHeaders } from './limits/caller-limits';
import { redisDeadline } from './redis-deadline';

export interface InvocationServiceDeps {
  resolver: SkillResolver;
  launcher: ExecutionLauncher;
  schemas: SkillSchemas;
  access: SkillAccess;
  limits: CallerLimits;
  defaultAuth: AuthConfig;
  redisTimeoutMs: number;
}

export interface Invocation {
  skillId: string;
  body: unknown;
  /** Who is invoking, from the credentials the request carries (the skill may name its own header). */
  identify(sources: CredentialSources): Promise<Identity>;
  /** `?version=` of the invoke URL, if any. */
  versionQuery: string | undefined;
  traceparentTraceId: string | undefined;
  /** The client's network address: what anonymous callers are counted by. */
  address: string;
  /** Receives the RateLimit headers of the limits that applied. */
  report: ReportHeaders;
}

export interface Accepted {
  execution: Execution;
  deprecation?: Deprecation;
}

const requestValidator = new SchemaValidator(InvocationRequest, 'invocation request');

/**
 * Accepts an invocation: the version is resolved and everything is validated before anything is
 * stored, then the execution record is written (so status is readable the instant 202 is
 * answered) and the job enqueued on that version's queue.
 */
export class InvocationService {
  constructor(private readonly deps: InvocationServiceDeps) {}

  async invoke(invocation: Invocation): Promise<Accepted> {
    const { skillId, body, identify, versionQuery, traceparentTraceId, report } = invocation;
    const request = requestValidator.parse(body);
    const bodyKey = request.caller.credentials?.api_key;
    let identity = await this.redis(() => identify({ bodyKey }));
    const principal = principalOf(identity);
    if (request.skill_id !== skillId) {
      throw new SkillError(
        'INVALID_INPUT',
        `skill_id "${request.skill_id}" does not match the URL's "${skillId}"`,
        { details: [{ path: '/skill_id', message: `must be "${skillId}"` }] },
      );
    }
    const range = requestedRange(request.version, versionQuery);
    const { entry, migrations, deprecation } = await this.redis(() =>
      this.deps.resolver.resolve(skillId, range, (candidate) =>
        this.deps.access.canSee(candidate, principal),
      ),
    );
    identity = await this.identifyFor(entry, identity, identify);
    this.deps.access.assertMayInvoke(entry, identity);
    const owner = principalOf(identity)?.callerId;
    if (owner !== undefined && request.caller.id !== owner) {
      throw new SkillError(
        'ACCESS_DENIED',
        `caller.id "${request.caller.id}" is not the caller the credentials belong to`,
        {
          details: [
            { path: '/caller/id', message: 'must be the id of the authenticated caller, or left as it' },
          ],
        },
      );
    }
    if (entry.source !== 'hosted') {
      throw new SkillError(
        'SKILL_NOT_HOSTED',
        `${entry.id}@${entry.version} is registered for discovery; invoke it at ${entry.descriptor.endpoint.url}`,
      );
    }
    const subject = { callerId: owner, address: invocation.address, skillId: entry.id };
    await this.redis(() => this.deps.limits.consume(subject, report));
    const skill = entry.definition;
    const inputs = this.deps.schemas.assertInputs(skill.input, migrateInputs(request.inputs, migrations), {
      coerce: coercionOf(entry),
      basePath: '/inputs',
    });
    const payload = newJobPayload({
      skill_id: skill.name,
      skill_version: skill.version,
      inputs,
      caller: { id: request.caller.id, type: request.caller.type },
      trace_id: request.context?.trace_id ?? traceparentTraceId ?? newTraceId(),
      priority: request.context?.priority ?? 'normal',
      ...(request.context?.timeout_ms === undefined ? {} : { timeout_ms: request.context.timeout_ms }),
      ...(owner === undefined ? {} : { owner }),
    });
    const slots = await this.redis(() => this.deps.limits.take(subject, payload.execution_id, report));
    const launch = { payload, skill, ...(range === undefined ? {} : { requestedVersion: range }) };
    const execution = await this.launch(launch, slots);
    return { execution, ...(deprecation ? { deprecation } : {}) };
  }

  /**
   * The identity the skill's own auth asks for: a key in the header its descriptor names, or, for
   * `custom` auth, what the custom authorizer says of its credential.
   */
  private async identifyFor(
    entry: RegistryEntry,
    identity: Identity,
    identify: Invocation['identify'],
  ): Promise<Identity> {
    const auth = authOf(entry, this.deps.defaultAuth);
    const { header } = auth;
    let found = identity;
    if (found.kind === 'anonymous' && header) found = await this.redis(() => identify({ header }));
    if (auth.type === 'custom' && found.kind !== 'principal') {
      found = await identify({
        ...(header ? { header } : {}),
        custom: { id: entry.id, version: entry.version },
      });
    }
    return found;
  }

  /** Records and enqueues the execution holding its concurrency slots, or gives them back. */
  private async launch(request: LaunchRequest, slots: SlotClaim[]): Promise<Execution> {
    try {
      const keys = slots.map((slot) => slot.key);
      return await this.deps.launcher.launch(
        { ...request, ...(keys.length > 0 ? { slots: keys } : {}) },
        (operation) => this.redis(operation),
      );
    } catch (error) {
      await this.deps.limits.release(request.payload.execution_id, slots).catch(() => {});
      throw error;
    }
  }

  private redis<T>(operation: () => Promise<T>): Promise<T> {
    return redisDeadline(operation, this.deps.redisTimeoutMs);
  }
}

/** The range from the body's `version` or the URL's `?version=`; they must agree when both are given. */
function requestedRange(fromBody: string | undefined, fromQuery: string | undefined): string | undefined {
  if (fromBody !== undefined && fromQuery !== undefined && fromBody !== fromQuery) {
    throw new SkillError('INVALID_INPUT', 'The body and the URL name different versions', {
      details: [{ path: '/version', message: `must match the URL's version "${fromQuery}" or be left out` }],
    });
  }
  const text = fromBody ?? fromQuery;
  return text === undefined ? undefined : parseVersionRange(text, '/version');
}
