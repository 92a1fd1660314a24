import {
  type AuthConfig,
  activeTraceId,
  type Deprecation,
  type Execution,
  InvocationRequest,
  migrateInputs,
  newTraceId,
  parseVersionRange,
  SchemaValidator,
  SkillError,
  type SkillSchemas,
  traceIdFromTraceparent,
  type WebhookMode,
  type WebhookTarget,
  withTimeout,
} from '@skillrun/core';
import {
  authOf,
  coercionOf,
  type ExecutionLauncher,
  type LaunchRequest,
  newJobPayload,
  type RegistryEntry,
  type ResolvedSkill,
  runTargetOf,
  type SkillResolver,
  type SlotClaim,
  type WebhookStore,
} from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import { type Identity, principalOf } from '../auth/identity';
import type { SkillAccess } from '../auth/skill-access';
import type { ExecutionWatch } from '../executions/execution-watch';
import type { ExecutionWatcher } from '../executions/execution-watcher';
import { headerOf, type RequestHeaders } from '../http/request-headers';
import { idempotencyKeyOf } from '../idempotency/idempotency-key-header';
import type { Claim, IdempotencyKeys } from '../idempotency/idempotency-keys';
import type { CallerLimits } from '../limits/caller-limits';
import { joinRateLimitHeaders } from '../limits/rate-limit-headers';
import type { WebhookUrlCheck } from '../webhooks/webhook-url-check';
import type { FairShare } from './fair-share';
import type { NotifiedCallers } from './notified-callers';

export interface InvocationServiceDeps {
  resolver: SkillResolver;
  launcher: ExecutionLauncher;
  schemas: SkillSchemas;
  access: SkillAccess;
  limits: CallerLimits;
  identities: Identities;
  defaultAuth: AuthConfig;
  idempotency: IdempotencyKeys;
  fairShare: FairShare;
  webhooks: WebhookStore;
  notified: NotifiedCallers;
  webhookUrls: WebhookUrlCheck;
  /** Where a client that waits for the end (`wait`) is told of it. */
  watcher: ExecutionWatcher;
}

export interface Invocation {
  skillId: string;
  body: unknown;
  /**
   * The request's header fields: its credentials (X-API-Key, Authorization, or a header the skill
   * names) and its `traceparent`.
   */
  headers: RequestHeaders;
  /** `?version=` of the invoke URL, if any. */
  versionQuery: string | undefined;
  /** The client's network address: what anonymous callers are counted by. */
  address: string;
  /** The execution this invocation replays (POST replay). */
  replayOf?: string;
  /**
   * The client waits up to this long for the end (Prefer: wait): the new execution is watched from
   * before it exists (Accepted's `watch`), unless it makes a webhook (answered at once).
   */
  waitSeconds?: number;
}

export interface Accepted {
  execution: Execution;
  deprecation?: Deprecation;
  /** The execution an earlier request with the same Idempotency-Key started: nothing new was. */
  replayed?: boolean;
  /** The webhook the invocation named, and its secret (answered this once). */
  webhook?: { id: string; secret: string };
  /**
   * For `waitSeconds`: its changes, announced to this watch since before it was created, so the
   * wait needs no read first (see ExecutionReader.endOf, which releases it). Absent when the
   * gateway could not watch it then (MAX_WAITERS, or no subscription in time).
   */
  watch?: ExecutionWatch;
}

/**
 * What an invocation comes to: accepted, or refused with the error to answer; either way with the
 * RateLimit headers of the quotas that applied, which the answer carries.
 */
export type InvocationOutcome = { headers: Record<string, string> } & (
  | { accepted: Accepted }
  | { refused: unknown }
);

const requestValidator = new SchemaValidator(InvocationRequest, 'invocation request');

/** The longest an invocation that waits for its end is held back for its subscription. */
const SUBSCRIBE_BOUND_MS = 1000;

/** An invocation that passed every check of who invokes which version. */
interface Checked {
  request: InvocationRequest;
  /** The version resolved: one this service's workers host, or one registered from elsewhere. */
  entry: RegistryEntry;
  migrations: ResolvedSkill['migrations'];
  deprecation: ResolvedSkill['deprecation'];
  /** The authenticated caller, if any. */
  owner: string | undefined;
  range: string | undefined;
}

/**
 * Accepts an invocation: the version is resolved and everything is validated before anything is
 * stored, then the execution record is written (so status is readable the instant 202 is
 * answered) and the job enqueued on that version's queue.
 */
export class InvocationService {
  constructor(private readonly deps: InvocationServiceDeps) {}

  async invoke(invocation: Invocation): Promise<InvocationOutcome> {
    const answer: { headers: Record<string, string> } = { headers: {} };
    try {
      const accepted = await this.accept(invocation, answer);
      return { headers: answer.headers, accepted };
    } catch (refused) {
      return { headers: answer.headers, refused };
    }
  }

  /** Accepts the invocation or throws why not; `answer` gets the RateLimit headers as they are known. */
  private async accept(
    invocation: Invocation,
    answer: { headers: Record<string, string> },
  ): Promise<Accepted> {
    const idempotencyKey = idempotencyKeyOf(invocation.headers);
    const checked = await this.check(invocation);
    const { deprecation } = checked;
    let claim: Claim | undefined;
    if (idempotencyKey !== undefined) {
      const claimed = await this.deps.idempotency.claim(
        // Keys belong to the authenticated caller, or to the caller an anonymous request names.
        checked.owner ?? `anonymous:${checked.request.caller.id}`,
        idempotencyKey,
        { skill_id: invocation.skillId, version: checked.range ?? null, body: invocation.body },
      );
      if ('replay' in claimed) return { execution: claimed.replay, replayed: true };
      claim = claimed.claim;
    }
    try {
      const { execution, webhook, watch } = await this.start(invocation, checked, answer);
      // Started either way: a key left unbound (Redis failed just now) lapses with its claim.
      await claim?.accept(execution).catch(() => {});
      return {
        execution,
        ...(deprecation ? { deprecation } : {}),
        ...(webhook ? { webhook } : {}),
        ...(watch ? { watch } : {}),
      };
    } catch (error) {
      await claim?.release().catch(() => {});
      throw error;
    }
  }

  /** Who invokes which version, and whether they may: everything but limits and inputs. */
  private async check({ skillId, body, headers, versionQuery }: Invocation): Promise<Checked> {
    const { identities } = this.deps;
    const request = requestValidator.parse(body);
    const bodyKey = request.caller.credentials?.api_key;
    let identity = await identities.of(headers, { bodyKey });
    const principal = principalOf(identity);
    if (request.skill_id !== skillId) {
      throw new SkillError(
        'INVALID_INPUT',
        `skill_id "${request.skill_id}" does not match the URL's "${skillId}"`,
        { details: [{ path: '/skill_id', message: `must be "${skillId}"` }] },
      );
    }
    const range = requestedRange(request.version, versionQuery);
    const { entry, migrations, deprecation } = await this.deps.resolver.resolve(skillId, range, (candidate) =>
      this.deps.access.canSee(candidate, principal),
    );
    identity = await this.identifyFor(entry, identity, headers);
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
    if (request.webhook) this.deps.webhookUrls.assert(request.webhook.url, '/webhook/url');
    return { request, entry, migrations, deprecation, owner, range };
  }

  /** Limits, inputs, then the launch. */
  private async start(
    { headers, address, replayOf, waitSeconds }: Invocation,
    { request, entry, migrations, owner, range }: Checked,
    answer: { headers: Record<string, string> },
  ): Promise<Pick<Accepted, 'execution' | 'webhook' | 'watch'>> {
    const subject = { callerId: owner, address, skillId: entry.id };
    const rate = await this.deps.limits.consume(subject);
    answer.headers = rate.headers;
    if (rate.refusal) throw rate.refusal;
    const { skill, remote } = runTargetOf(entry);
    const inputs = this.deps.schemas.assertInputs(skill.input, migrateInputs(request.inputs, migrations), {
      coerce: coercionOf(entry),
      basePath: '/inputs',
    });
    const payload = newJobPayload({
      skill_id: skill.name,
      skill_version: skill.version,
      inputs,
      caller: { id: request.caller.id, type: request.caller.type },
      trace_id:
        request.context?.trace_id ??
        activeTraceId() ??
        traceIdFromTraceparent(headerOf(headers, 'traceparent')) ??
        newTraceId(),
      priority: request.context?.priority ?? 'normal',
      ...(request.context?.timeout_ms === undefined ? {} : { timeout_ms: request.context.timeout_ms }),
      ...queueTimeoutOf(request.context?.queue_timeout_ms ?? skill.queue_timeout),
      ...(owner === undefined ? {} : { owner }),
    });
    // Before a slot is taken: nothing between taking one and the launch may throw (the slot would stay).
    const webhook = await this.webhookOf(request.webhook, owner, payload.execution_id);
    const hook = strongest(webhook?.on, this.deps.notified.modeOf(owner));
    const watch =
      waitSeconds === undefined || webhook
        ? undefined
        : await this.watchNew(payload.execution_id, waitSeconds);
    try {
      const taken = await this.deps.limits.take(subject, payload.execution_id);
      answer.headers = joinRateLimitHeaders(answer.headers, taken.headers);
      if (taken.refusal) throw taken.refusal;
      const place = this.deps.fairShare.place(
        owner ?? `anonymous:${request.caller.id}`,
        `${skill.name}@${skill.version}`,
      );
      const notify = {
        ...(hook ? { hook, ...(webhook ? { webhook_id: webhook.id } : {}) } : {}),
        ...(watch ? { watched: this.deps.watcher.id } : {}),
      };
      const launch = {
        payload,
        skill,
        ...(hook || watch ? { notify } : {}),
        ...(remote ? { remote: true, retryBackoffMs: remote.retryBackoffMs } : {}),
        ...(place ? { place } : {}),
        ...(range === undefined ? {} : { requestedVersion: range }),
        ...(replayOf === undefined ? {} : { replayOf }),
      };
      const execution = await this.launch(launch, taken.slots);
      return {
        execution,
        ...(webhook ? { webhook: { id: webhook.id, secret: webhook.secret } } : {}),
        ...(watch ? { watch } : {}),
      };
    } catch (error) {
      watch?.release();
      throw error;
    }
  }

  /**
   * A watch on an execution about to be created with this gateway's watcher in its record, whose
   * inbox is subscribed before it exists (once per gateway), so that none of its changes can be
   * missed; undefined (the wait then reads first, as GET status does) when this gateway keeps
   * MAX_WAITERS already or the inbox is not subscribed within the wait.
   */
  private async watchNew(executionId: string, waitSeconds: number): Promise<ExecutionWatch | undefined> {
    const watch = this.deps.watcher.watch(executionId);
    if (!watch) return undefined;
    try {
      await withTimeout(watch.subscribed, Math.min(waitSeconds * 1000, SUBSCRIBE_BOUND_MS));
      return watch;
    } catch {
      watch.release();
      return undefined;
    }
  }

  /** The webhook the invocation names, made for its execution (before the execution exists). */
  private async webhookOf(target: WebhookTarget | undefined, owner: string | undefined, executionId: string) {
    if (target === undefined) return undefined;
    return this.deps.webhooks.createForExecution(owner, target, executionId);
  }

  /**
   * The identity the skill's own auth asks for: a key in the header its descriptor names, or, for
   * `custom` auth, what the custom authorizer says of its credential.
   */
  private async identifyFor(
    entry: RegistryEntry,
    identity: Identity,
    headers: RequestHeaders,
  ): Promise<Identity> {
    const { identities, defaultAuth } = this.deps;
    const auth = authOf(entry, defaultAuth);
    const { header } = auth;
    let found = identity;
    if (found.kind === 'anonymous' && header) {
      found = await identities.of(headers, { header });
    }
    if (auth.type === 'custom' && found.kind !== 'principal') {
      found = await identities.of(headers, {
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
      return await this.deps.launcher.launch({ ...request, ...(keys.length > 0 ? { slots: keys } : {}) });
    } catch (error) {
      await this.deps.limits.release(request.payload.execution_id, slots).catch(() => {});
      throw error;
    }
  }
}

/** What the webhooks that hear of an execution want: every change if one of them does. */
function strongest(...modes: (WebhookMode | undefined)[]): WebhookMode | undefined {
  if (modes.includes('change')) return 'change';
  return modes.includes('end') ? 'end' : undefined;
}

/** How long the execution may wait to start, if the caller or the skill set a queue timeout. */
function queueTimeoutOf(queueTimeoutMs: number | undefined): { queue_timeout_ms?: number } {
  return queueTimeoutMs === undefined ? {} : { queue_timeout_ms: queueTimeoutMs };
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
