import {
  type AuthConfig,
  activeTraceId,
  type Debounce,
  type Deprecation,
  type Execution,
  InvocationRequest,
  type JobPayload,
  newTraceId,
  type Principal,
  parseVersionRange,
  SchemaValidator,
  SkillError,
  type SkillSchemas,
  traceIdFromTraceparent,
  type VersionChoice,
  type WebhookMode,
  withTimeout,
} from '@skillrun/core';
import {
  approvalFor,
  authOf,
  type DebouncedLaunch,
  type ExecutionEngine,
  type InvocationOrigin,
  isGated,
  type LaunchOutcome,
  type LaunchRequest,
  launchInputs,
  newJobBudget,
  newJobPayload,
  type RegistryEntry,
  type RegistryVersion,
  type ResolvedSkill,
  runTargetOf,
  type ScheduledStart,
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
import type { Claim, IdempotencyKeys } from '../idempotency/idempotency-keys';
import type { CallerLimits } from '../limits/caller-limits';
import { joinRateLimitHeaders } from '../limits/rate-limit-headers';
import type { WebhookUrlCheck } from '../webhooks/webhook-url-check';
import type { FairShare } from './fair-share';
import type { NotifiedCallers } from './notified-callers';
import { requestedStartOf } from './requested-start';

export interface InvocationServiceDeps {
  resolver: SkillResolver;
  /** Where new executions are placed (their id: their vshard, on a sharded deployment) and launched. */
  engine: Pick<ExecutionEngine, 'place' | 'launch' | 'launchMany' | 'launchDebounced'>;
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
  /** MAX_DELAY_MS: how far ahead an invocation may ask to start. */
  maxDelayMs: number;
  /** Told of each execution started: its skill, the version it runs and what chose it (the metric). */
  versionChosen(skillId: string, version: string, chosenBy: VersionChoice): void;
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
  /**
   * Where it came from, when not POST invoke: a batch's item, a schedule's run, a replay (what the
   * record names, and what places it: ExecutionEngine.place).
   */
  origin?: InvocationOrigin;
  /** Its idempotency key: POST invoke's Idempotency-Key, or a batch item's `idempotency_key`. */
  idempotencyKey?: string;
  /**
   * Who invokes, known already: a schedule's run acts for the caller who made the schedule (its
   * access checked anew), with no request to read credentials from.
   */
  identity?: Identity;
  /**
   * The client waits up to this long for the end (Prefer: wait): the new execution is watched from
   * before it exists (Accepted's `watch`), unless it makes a webhook (answered at once).
   */
  waitSeconds?: number;
  /**
   * What the invoker does for the execution before it exists, once its id is known (where an
   * invocation's own webhook is made): an A2A message's push notification configuration and
   * context are noted then, so that none of its changes finds them missing. `notify`: its changes
   * go to the notifications stream (webhooks hear of them) from its creation on.
   */
  beforeLaunch?: { notify?: WebhookMode; run(executionId: string): Promise<void> };
}

export interface Accepted {
  execution: Execution;
  deprecation?: Deprecation;
  /** The execution an earlier request with the same Idempotency-Key started: nothing new was. */
  replayed?: boolean;
  /** The webhook the invocation named, and its secret (answered this once). */
  webhook?: { id: string; secret: string };
  /** The execution its debounce key had open (context.debounce): nothing new was started. */
  debounced?: boolean;
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

/** An invocation whose caller, version and idempotency key are checked: what admit passes on. */
interface Admitted {
  invocation: Invocation;
  checked: Checked;
}

/**
 * An invocation checked, limited and ready to launch, holding what it took on the way (its
 * concurrency slots, its idempotency key's claim, its watch) until it is launched or given up.
 */
export interface Prepared {
  launch: LaunchRequest;
  slots: SlotClaim[];
  claim: Claim | undefined;
  deprecation: Deprecation | undefined;
  webhook: { id: string; secret: string } | undefined;
  watch: ExecutionWatch | undefined;
  chosenBy: VersionChoice;
  /**
   * A debounced invocation's delay (context.debounce.delay_ms): launched on its own
   * (ExecutionEngine.launchDebounced), never in a bulk; it may join the execution its key has open.
   */
  debounceMs?: number;
}

/**
 * What an invocation comes to before its launch: ready, or answered already (refused, or the
 * execution its idempotency key started); with the RateLimit headers as InvocationOutcome.
 */
export type Preparation = InvocationOutcome | ({ headers: Record<string, string> } & { ready: Prepared });

const requestValidator = new SchemaValidator(InvocationRequest, 'invocation request');

/** The longest an invocation that waits for its end is held back for its subscription. */
const SUBSCRIBE_BOUND_MS = 1000;

/** An invocation that passed every check of who invokes which version, with its key's claim. */
interface Checked {
  request: InvocationRequest;
  /** The version resolved: one this service's workers host, or one registered from elsewhere. */
  entry: RegistryVersion;
  /** What chose it: the request's range, the caller's pin, the skill's ramp, or the default. */
  chosenBy: VersionChoice;
  migrations: ResolvedSkill['migrations'];
  deprecation: ResolvedSkill['deprecation'];
  /** The authenticated caller, if any: who the execution acts for, and its id. */
  principal: Principal | undefined;
  owner: string | undefined;
  range: string | undefined;
  /** When a delayed invocation starts; undefined to start at once. */
  start: ScheduledStart | undefined;
  claim?: Claim;
}

/**
 * Accepts an invocation: the version is resolved and everything is validated before anything is
 * stored, then the execution record is written (so status is readable the instant 202 is
 * answered) and the job enqueued on that version's queue. One invocation at a time (POST invoke),
 * or many prepared each on its own and launched together (a batch): the same checks, the same
 * launch.
 */
export class InvocationService {
  constructor(private readonly deps: InvocationServiceDeps) {}

  /**
   * Checks an invocation as if it were made, and starts nothing: who invokes which version, and the
   * inputs against that version's schema (limits are not consumed). Answers the authenticated
   * caller it would act for, if any; throws the refusal. A schedule is vetted so when it is made or
   * changed.
   */
  async vet(invocation: Invocation): Promise<Principal | undefined> {
    const checked = await this.check(invocation);
    this.inputsOf(checked);
    return checked.principal;
  }

  async invoke(invocation: Invocation): Promise<InvocationOutcome> {
    const prepared = await this.ready(await this.admit(invocation));
    if (!('ready' in prepared)) return prepared;
    return this.settle(prepared.ready, await this.launch(prepared.ready), prepared.headers);
  }

  /** One invocation's launch: the ordinary one, or a debounced one's (which may join an execution). */
  private launch({ launch, debounceMs }: Prepared): Promise<LaunchOutcome | DebouncedLaunch> {
    const { engine } = this.deps;
    const launched =
      debounceMs === undefined
        ? engine.launch(launch).then((execution) => ({ execution }))
        : engine.launchDebounced(launch, debounceMs);
    return launched.catch((refused: unknown) => ({ refused }));
  }

  /**
   * Each invocation checked, limited and made ready to launch, or answered: who invokes what (and
   * their idempotency keys) for all of them first, then their limits in their order, so that of a
   * batch over a caller's remaining rate the first items are the ones that run.
   */
  async prepareAll(invocations: Invocation[]): Promise<Preparation[]> {
    const admitted = await Promise.all(invocations.map((invocation) => this.admit(invocation)));
    return Promise.all(admitted.map((each) => this.ready(each)));
  }

  /**
   * An admitted invocation limited and made ready to launch, or refused (its key's claim given
   * back); one answered already (admit's) as it is. POST invoke comes here straight from admit:
   * prepareAll's steps for one invocation, without the arrays.
   */
  private async ready(each: Admitted | InvocationOutcome): Promise<Preparation> {
    if (!('checked' in each)) return each;
    const answer: { headers: Record<string, string> } = { headers: {} };
    try {
      const ready = await this.prepare(each.invocation, each.checked, answer);
      return { headers: answer.headers, ready };
    } catch (refused) {
      await each.checked.claim?.release().catch(() => {});
      return { headers: answer.headers, refused };
    }
  }

  /**
   * Launches invocations made ready together (one write, one round trip: ExecutionEngine's
   * launchMany); each is accepted or refused on its own, in their order.
   */
  async launchAll(ready: Prepared[]): Promise<InvocationOutcome[]> {
    const launched = await this.deps.engine.launchMany(ready.map((each) => each.launch));
    return Promise.all(ready.map((each, index) => this.settle(each, launched[index] as LaunchOutcome, {})));
  }

  /**
   * An invocation's launch, as it came out: its key bound to the execution, or, refused, what it
   * held given back. A debounced one that joined the execution its key had open gives back its
   * slots and its watch too: they were for the execution it would have started.
   */
  private async settle(
    ready: Prepared,
    launched: LaunchOutcome | DebouncedLaunch,
    headers: Record<string, string>,
  ): Promise<InvocationOutcome> {
    const { claim, deprecation, webhook, watch } = ready;
    if ('refused' in launched) {
      watch?.release();
      const { execution_id } = ready.launch.payload;
      await Promise.all([
        this.deps.limits.release(execution_id, ready.slots).catch(() => {}),
        claim?.release().catch(() => {}),
      ]);
      return { headers, refused: launched.refused };
    }
    const { execution } = launched;
    const joined = 'joined' in launched && launched.joined;
    if (joined) {
      watch?.release();
      await this.deps.limits.release(ready.launch.payload.execution_id, ready.slots).catch(() => {});
    }
    // Started either way: a key left unbound (Redis failed just now) lapses with its claim.
    if (claim) await claim.accept(execution).catch(() => {});
    const { skill_id, skill_version } = ready.launch.payload;
    if (!joined) this.deps.versionChosen(skill_id, skill_version, ready.chosenBy);
    return {
      headers,
      accepted: {
        execution,
        ...(deprecation ? { deprecation } : {}),
        ...(webhook ? { webhook } : {}),
        ...(watch && !joined ? { watch } : {}),
        ...(joined ? { debounced: true } : {}),
      },
    };
  }

  /** Who invokes what, and their idempotency key's claim: checked, or answered already. */
  private async admit(invocation: Invocation): Promise<Admitted | InvocationOutcome> {
    try {
      const checked = await this.check(invocation);
      const { idempotencyKey } = invocation;
      if (idempotencyKey === undefined) return { invocation, checked };
      const claimed = await this.deps.idempotency.claim(
        // Keys belong to the authenticated caller, or to the caller an anonymous request names.
        checked.owner ?? `anonymous:${checked.request.caller.id}`,
        idempotencyKey,
        {
          skill_id: invocation.skillId,
          version: checked.range ?? null,
          body: invocation.body,
          // A replay's rerun from a step is another request than the rerun from another.
          ...forkOf(invocation.origin),
        },
      );
      if ('replay' in claimed)
        return { headers: {}, accepted: { execution: claimed.replay, replayed: true } };
      return { invocation, checked: { ...checked, claim: claimed.claim } };
    } catch (refused) {
      return { headers: {}, refused };
    }
  }

  /** Who invokes which version, and whether they may: everything but limits and inputs. */
  private async check({
    skillId,
    body,
    headers,
    versionQuery,
    identity: known,
  }: Invocation): Promise<Checked> {
    const { identities } = this.deps;
    const request = requestValidator.parse(body);
    const start = requestedStartOf(request.context, Date.now(), this.deps.maxDelayMs);
    const bodyKey = request.caller.credentials?.api_key;
    let identity = known ?? (await identities.of(headers, { bodyKey }));
    const principal = principalOf(identity);
    if (request.skill_id !== skillId) {
      throw new SkillError(
        'INVALID_INPUT',
        `skill_id "${request.skill_id}" does not match the URL's "${skillId}"`,
        { details: [{ path: '/skill_id', message: `must be "${skillId}"` }] },
      );
    }
    const range = requestedRange(request.version, versionQuery);
    // Callers are told apart by caller.id, which must be an authenticated caller's own (below).
    const { entry, migrations, deprecation, chosenBy } = await this.deps.resolver.choose(
      skillId,
      range,
      request.caller.id,
      (candidate) => this.deps.access.canSee(candidate, principal),
    );
    const auth = authOf(entry, this.deps.defaultAuth);
    if (asksAnotherIdentity(auth, identity))
      identity = await this.identifyFor(entry, auth, identity, headers);
    this.deps.access.assertMayInvoke(entry, identity);
    const acting = principalOf(identity);
    const owner = acting?.callerId;
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
    if (request.webhook && request.context?.debounce) {
      throw new SkillError('INVALID_INPUT', 'A debounced invocation cannot name a webhook of its own', {
        details: [
          {
            path: '/webhook',
            message: 'must be left out with context.debounce (a standing webhook hears of the execution)',
          },
        ],
      });
    }
    return { request, entry, chosenBy, migrations, deprecation, principal: acting, owner, range, start };
  }

  /**
   * Limits, inputs, and the launch's request (not sent); `answer` gets the RateLimit headers as they
   * are known. What it took is given back if it throws.
   */
  private async prepare(
    { headers, address, origin, waitSeconds, beforeLaunch }: Invocation,
    checked: Checked,
    answer: { headers: Record<string, string> },
  ): Promise<Prepared> {
    const { request, entry, chosenBy, deprecation, owner, range, start, claim, principal } = checked;
    const { skill, remote } = runTargetOf(entry);
    const debounce = request.context?.debounce;
    const keyBudget = principal?.dailyBudgetUsd;
    const subject = {
      callerId: owner,
      address,
      skillId: entry.id,
      ...(keyBudget === undefined ? {} : { dailyBudgetUsd: keyBudget }),
    };
    const executionId = this.deps.engine.place({
      skillId: skill.name,
      pinned: isGated(skill.concurrency, request.context?.concurrency_key)
        ? 'gated'
        : debounce
          ? 'debounced'
          : undefined,
      ...(origin ? { origin } : {}),
    });
    const rate = await this.deps.limits.consume(subject);
    answer.headers = rate.headers;
    if (rate.refusal) throw rate.refusal;
    const inputs = this.inputsOf(checked);
    const approval = approvalFor(entry, inputs, Date.now());
    if (approval && debounce) throw debouncedApproval();
    const payload = newJobPayload(
      {
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
        ...(request.context?.concurrency_key === undefined
          ? {}
          : { concurrency_key: request.context.concurrency_key }),
        ...(debounce ? { debounce: debouncedBy(debounce) } : {}),
        ...(request.context?.tags === undefined ? {} : { tags: request.context.tags }),
        ...(request.context?.metadata === undefined ? {} : { metadata: request.context.metadata }),
        ...(approval ? { approval: true as const } : {}),
        ...(request.context?.budget === undefined
          ? {}
          : { budget: newJobBudget(request.context.budget, executionId, Date.now()) }),
        ...(rate.dailySpendOf === undefined ? {} : { daily_spend_of: rate.dailySpendOf }),
      },
      executionId,
    );
    // Before a slot is taken: nothing between taking one and the launch may throw (the slot would stay).
    // The webhook the invocation names is made for its execution before the execution exists.
    const webhook = request.webhook
      ? await this.deps.webhooks.createForExecution(owner, request.webhook, payload.execution_id)
      : undefined;
    if (beforeLaunch) await beforeLaunch.run(payload.execution_id);
    const hook = strongest(webhook?.on, beforeLaunch?.notify, this.deps.notified.modeOf(owner));
    const watch =
      waitSeconds === undefined || webhook
        ? undefined
        : await this.watchNew(payload.execution_id, waitSeconds);
    try {
      const taken = await this.deps.limits.take(subject, payload.execution_id);
      answer.headers = joinRateLimitHeaders(answer.headers, taken.headers);
      if (taken.refusal) throw taken.refusal;
      // A delayed execution (or one awaiting its approval) joins its queue when due, behind what
      // waits then: fair share places only those that join it now.
      const place =
        start === undefined && approval === undefined
          ? this.deps.fairShare.place(
              owner ?? `anonymous:${request.caller.id}`,
              `${skill.name}@${skill.version}`,
            )
          : undefined;
      const notify = {
        ...(hook ? { hook, ...(webhook ? { webhook_id: webhook.id } : {}) } : {}),
        ...(watch ? { watched: this.deps.watcher.id } : {}),
      };
      const keys = taken.slots.map((slot) => slot.key);
      const launch = {
        payload,
        skill,
        ...(hook || watch ? { notify } : {}),
        ...(remote ? { remote: true, retryBackoffMs: remote.retryBackoffMs } : {}),
        ...(place ? { place } : {}),
        ...(range === undefined ? {} : { requestedVersion: range }),
        ...(origin ? { origin } : {}),
        ...(start === undefined ? {} : { start }),
        ...(approval ? { approval } : {}),
        ...(keys.length > 0 ? { slots: keys } : {}),
      };
      return {
        launch,
        slots: taken.slots,
        claim,
        deprecation,
        webhook: webhook ? { id: webhook.id, secret: webhook.secret } : undefined,
        watch,
        chosenBy,
        ...(debounce ? { debounceMs: debounce.delay_ms } : {}),
      };
    } catch (error) {
      watch?.release();
      throw error;
    }
  }

  /** The request's inputs, migrated to the version resolved and valid against its schema, or a refusal. */
  private inputsOf({ request, entry, migrations }: Checked): Record<string, unknown> {
    return launchInputs(this.deps.schemas, { entry, migrations }, request.inputs, '/inputs');
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

  /**
   * The identity the skill's own auth asks for: a key in the header its descriptor names, or, for
   * `custom` auth, what the custom authorizer says of its credential.
   */
  private async identifyFor(
    entry: RegistryEntry,
    auth: AuthConfig,
    identity: Identity,
    headers: RequestHeaders,
  ): Promise<Identity> {
    const { identities } = this.deps;
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
}

/** Whether the skill's own auth asks for an identity other than the request's (see identifyFor). */
function asksAnotherIdentity(auth: AuthConfig, identity: Identity): boolean {
  return (
    (identity.kind === 'anonymous' && Boolean(auth.header)) ||
    (auth.type === 'custom' && identity.kind !== 'principal')
  );
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

/** A debounced invocation joins an execution that may be running: an approval could not hold it. */
function debouncedApproval(): SkillError {
  return new SkillError(
    'INVALID_INPUT',
    'This invocation needs an approval, which a debounced one cannot wait for',
    {
      details: [
        { path: '/context/debounce', message: "must be left out: the skill's approval policy applies" },
      ],
    },
  );
}

/** What a debounced launch carries of its key: the key, its mode and its maximum delay. */
function debouncedBy({
  key,
  mode = 'trailing',
  max_delay_ms,
}: Debounce): NonNullable<JobPayload['debounce']> {
  return { key, mode, ...(max_delay_ms === undefined ? {} : { max_delay_ms }) };
}

/** Where a replay forks from, if it reruns a composite from a step: part of what its key binds. */
function forkOf(origin: InvocationOrigin | undefined): {
  forked_from?: { execution_id: string; step: string };
} {
  return origin?.kind === 'replay' && origin.fork ? { forked_from: origin.fork.from } : {};
}
