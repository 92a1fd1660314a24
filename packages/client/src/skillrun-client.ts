import { backoffDelay, sleep } from './backoff.js';
import type {
  CallOptions,
  ClientOptions,
  InvokeAndWaitOptions,
  InvokeOptions,
  WaitOptions,
} from './client-options.js';
import { type CompiledOptions, compileOptions } from './compiled-options.js';
import type { ExecutionHandle, ExecutionRef } from './execution-handle.js';
import { ExecutionWaiter, readExecution } from './execution-waiter.js';
import { HttpTransport } from './http-transport.js';
import type {
  CallerIdentity,
  Execution,
  ExecutionPage,
  ExecutionQuery,
  InvocationAccepted,
  SkillDescriptor,
  SkillPage,
  SkillSearchQuery,
  SkillVersionList,
} from './protocol.js';
import { isTerminal } from './protocol.js';
import type { SkillInput, SkillOutput } from './skill-types.js';
import { SkillrunError } from './skillrun-error.js';
import { executionUrl, urlWithQuery } from './url-template.js';

/** One skill, typed by its id's entry in SkillTypes. */
export interface TypedSkill<Id extends string> {
  readonly id: Id;
  invoke(inputs: SkillInput<Id>, options?: InvokeOptions): Promise<ExecutionHandle>;
  invokeAndWait(inputs: SkillInput<Id>, options?: InvokeAndWaitOptions): Promise<SkillOutput<Id>>;
}

/** The longest an invocation's POST asks to wait for the end (`Prefer: wait=N`), in seconds. */
const LONGEST_POST_WAIT_SECONDS = 30;

/** What each ended status means when the execution carries no error of its own. */
const ENDED_WITHOUT_ERROR: Record<string, string> = {
  failed: 'TOOL_EXECUTION_FAILED',
  timeout: 'EXECUTION_TIMEOUT',
  canceled: 'EXECUTION_CANCELED',
};

/**
 * A spec 001 consumer: reads a skill's descriptor, sends the credentials its `auth` names, invokes
 * `endpoint.url` and follows `status_url` / `result_url` (or skillrun's live status).
 */
export class SkillrunClient {
  private readonly compiled: CompiledOptions;
  private readonly transport: HttpTransport;
  private readonly waiter: ExecutionWaiter;
  private readonly descriptors = new Map<string, { descriptor: SkillDescriptor; at: number }>();
  private ownCaller: Promise<ClientCaller> | undefined;

  constructor(options: ClientOptions = {}) {
    this.compiled = compileOptions(options);
    this.transport = new HttpTransport(this.compiled);
    this.waiter = new ExecutionWaiter(this.compiled, this.transport);
  }

  /** skillrun's GET /me of `baseUrl`: who the client's credentials say the caller is. */
  async me(options: CallOptions = {}): Promise<CallerIdentity> {
    const url = urlWithQuery(this.baseUrl(), '/me');
    const identity = await this.get<CallerIdentity>(url, options.signal);
    if (typeof identity?.caller_id !== 'string') throw unexpected(url, identity);
    return identity;
  }

  /** GET /skills of `baseUrl`: one page of the catalogue. */
  async listSkills(query: SkillSearchQuery = {}, options: CallOptions = {}): Promise<SkillPage> {
    const url = urlWithQuery(this.baseUrl(), '/skills', { ...query });
    const answer = await this.get<SkillPage>(url, options.signal);
    if (!Array.isArray(answer.skills)) throw unexpected(url, answer);
    return { skills: answer.skills, next_cursor: answer.next_cursor ?? null };
  }

  /** Skills whose id, name, description or tags hold every word of `q`. */
  searchSkills(q: string, options: CallOptions & Omit<SkillSearchQuery, 'q'> = {}): Promise<SkillPage> {
    const { signal, ...query } = options;
    return this.listSkills({ ...query, q }, signal ? { signal } : {});
  }

  /** A skill's descriptor: by id from `baseUrl` (`version` a semver range), or from its URL. */
  async describe(skill: string, options: CallOptions & { version?: string } = {}): Promise<SkillDescriptor> {
    const url = /^https?:\/\//i.test(skill)
      ? skill
      : urlWithQuery(this.baseUrl(), `/skills/${encodeURIComponent(skill)}`, { version: options.version });
    const descriptor = await this.get<SkillDescriptor>(url, options.signal);
    if (typeof descriptor?.id !== 'string' || typeof descriptor.endpoint?.url !== 'string') {
      throw unexpected(url, descriptor);
    }
    this.descriptors.set(cacheKey(skill, options.version), { descriptor, at: Date.now() });
    return descriptor;
  }

  /** skillrun's GET /skills/{id}/versions of `baseUrl`: every available version, highest first. */
  async versions(skillId: string, options: CallOptions = {}): Promise<SkillVersionList> {
    const url = urlWithQuery(this.baseUrl(), `/skills/${encodeURIComponent(skillId)}/versions`);
    const list = await this.get<SkillVersionList>(url, options.signal);
    if (!Array.isArray(list?.versions)) throw unexpected(url, list);
    return list;
  }

  /**
   * POST the descriptor's `endpoint.url` with its credentials. Sends an `Idempotency-Key` (the
   * given one, or a new one), so that a retried request cannot start the skill twice.
   */
  async invoke(
    skill: string | SkillDescriptor,
    inputs: object,
    options: InvokeOptions = {},
  ): Promise<ExecutionHandle> {
    return (await this.post(skill, inputs, options, 0)).handle;
  }

  /**
   * The invocation's POST. Asked to wait (`Prefer: wait=N`, RFC 7240), a provider that can answers
   * 200 with the execution once it ends: `ended` then. One that does not answers 202 as ever.
   */
  private async post(
    skill: string | SkillDescriptor,
    inputs: object,
    options: InvokeOptions,
    waitSeconds: number,
  ): Promise<{ handle: ExecutionHandle; ended?: Execution }> {
    const descriptor =
      typeof skill === 'string' ? await this.cachedDescriptor(skill, options.version, options.signal) : skill;
    const url = new URL(descriptor.endpoint.url, this.compiled.baseUrl).toString();
    const answer = await this.transport.request<InvocationAccepted | Execution>({
      method: 'POST',
      url,
      headers: {
        ...(await this.compiled.credentials.for(url, descriptor.auth, options.signal)),
        'idempotency-key': options.idempotencyKey ?? globalThis.crypto.randomUUID(),
        ...(waitSeconds > 0 ? { prefer: `wait=${waitSeconds}` } : {}),
      },
      json: {
        caller: await this.callerFor(url, options.signal),
        skill_id: descriptor.id,
        inputs,
        ...(options.context ? { context: options.context } : {}),
      },
      retry: this.policyOf(descriptor),
      timeoutMs: this.compiled.requestTimeoutMs + waitSeconds * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const body = answer.body;
    if (typeof body?.execution_id !== 'string') throw unexpected(url, body);
    if (answer.status === 200 && isTerminal(body.status)) {
      return { handle: this.handleOf(descriptor, body.execution_id), ended: body as Execution };
    }
    return { handle: this.handleOf(descriptor, body.execution_id, body as InvocationAccepted) };
  }

  /** GET the execution's `status_url`. */
  async status(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    const handle = await this.resolve(execution, options.signal);
    return (await readExecution(this.compiled, this.transport, handle.statusUrl, handle, 0, options.signal))
      .body;
  }

  /** GET the execution's `result_url`. */
  async result(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    const handle = await this.resolve(execution, options.signal);
    return (await readExecution(this.compiled, this.transport, handle.resultUrl, handle, 0, options.signal))
      .body;
  }

  /**
   * The execution once it has ended (completed, failed, timeout or canceled), over its live status
   * when the descriptor names `x-events_url`, else by long-polling or polling `status_url`.
   */
  async wait(execution: ExecutionRef, options: WaitOptions = {}): Promise<Execution> {
    return this.waiter.wait(await this.resolve(execution, options.signal), options);
  }

  /**
   * Invokes and waits: the output, or a SkillrunError with the execution's error code. With
   * `retryTimeouts`, an execution that ends `timeout` with spec 001's `retry` hints is invoked again.
   */
  async invokeAndWait(
    skill: string | SkillDescriptor,
    inputs: object,
    options: InvokeAndWaitOptions = {},
  ): Promise<unknown> {
    const { timeoutMs, onUpdate, retryTimeouts, idempotencyKey, ...invokeOptions } = options;
    const waitOptions = {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(onUpdate ? { onUpdate } : {}),
    };
    for (let run = 1; ; run++) {
      // Each run is a new execution: a given key is made another for it.
      const key =
        idempotencyKey === undefined
          ? {}
          : { idempotencyKey: run === 1 ? idempotencyKey : `${idempotencyKey}#${run}` };
      // Without onUpdate nothing needs the states on the way: the POST itself may bring the end.
      const started = Date.now();
      const waitSeconds = onUpdate
        ? 0
        : Math.min(LONGEST_POST_WAIT_SECONDS, Math.floor((timeoutMs ?? Infinity) / 1000));
      const posted = await this.post(skill, inputs, { ...invokeOptions, ...key }, waitSeconds);
      const left =
        timeoutMs === undefined ? {} : { timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)) };
      const ended = posted.ended ?? (await this.wait(posted.handle, { ...waitOptions, ...left }));
      if (ended.status === 'completed') return ended.output;
      const error = ended.error ?? {
        code: ENDED_WITHOUT_ERROR[ended.status] ?? 'TOOL_EXECUTION_FAILED',
        message: `Execution ${ended.execution_id} ended ${ended.status}`,
      };
      const hint = error.retry;
      const again =
        retryTimeouts === true &&
        ended.status === 'timeout' &&
        error.recoverable !== false &&
        hint !== undefined &&
        run < (hint.max_attempts ?? 1);
      if (!again) throw SkillrunError.fromBody(error, { execution: ended });
      const policy = this.compiled.retry;
      await sleep(
        backoffDelay(policy, run - 1, hint.suggested_delay_ms ?? policy.initialDelayMs),
        options.signal,
      );
    }
  }

  /** POST the descriptor's `endpoint.x-cancel_url` (skillrun's extension): the execution, canceled. */
  async cancel(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    const handle = await this.resolve(execution, options.signal);
    if (!handle.cancelUrl) {
      throw new SkillrunError('NOT_SUPPORTED', `Skill ${handle.skillId}'s descriptor names no x-cancel_url`);
    }
    const answer = await this.transport.request<Execution>({
      method: 'POST',
      url: handle.cancelUrl,
      headers: await this.compiled.credentials.for(handle.cancelUrl, handle.descriptor.auth, options.signal),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (typeof answer.body?.status !== 'string') throw unexpected(handle.cancelUrl, answer.body);
    return answer.body;
  }

  /** GET /executions of `baseUrl` (skillrun's history): the caller's executions, newest first. */
  async executions(query: ExecutionQuery = {}, options: CallOptions = {}): Promise<ExecutionPage> {
    const status = Array.isArray(query.status) ? query.status.join(',') : query.status;
    const url = urlWithQuery(this.baseUrl(), '/executions', { ...query, status });
    const answer = await this.get<ExecutionPage>(url, options.signal);
    if (!Array.isArray(answer.executions)) throw unexpected(url, answer);
    return { executions: answer.executions, next_cursor: answer.next_cursor ?? null };
  }

  /** A skill whose inputs and output are typed by its entry in SkillTypes. */
  skill<Id extends string>(id: Id): TypedSkill<Id> {
    return {
      id,
      invoke: (inputs, options) => this.invoke(id, inputs as object, options),
      invokeAndWait: async (inputs, options) =>
        (await this.invokeAndWait(id, inputs as object, options)) as SkillOutput<Id>,
    };
  }

  private async get<T>(url: string, signal?: AbortSignal): Promise<T> {
    const answer = await this.transport.request<T>({
      method: 'GET',
      url,
      headers: await this.compiled.credentials.for(url, undefined, signal),
      ...(signal ? { signal } : {}),
    });
    return answer.body;
  }

  /**
   * The caller an invocation at `url` names: the given one; else, on the service's own origin with
   * credentials, the one GET /me names (asked once; a service without /me gets the default).
   */
  private async callerFor(url: string, signal?: AbortSignal): Promise<ClientCaller> {
    const { caller, callerGiven, baseUrl, origins } = this.compiled;
    if (callerGiven || baseUrl === undefined || !origins.includes(url)) return caller;
    const credentials = await this.compiled.credentials.for(url, undefined, signal);
    if (Object.keys(credentials).length === 0) return caller;
    if (!this.ownCaller) {
      this.ownCaller = this.me(signal ? { signal } : {}).then(
        (identity) => ({ id: identity.caller_id, type: caller.type }),
        (error: unknown) => {
          if (error instanceof SkillrunError && error.httpStatus === 404) return caller;
          this.ownCaller = undefined;
          throw error;
        },
      );
    }
    return this.ownCaller;
  }

  private baseUrl(): string {
    if (this.compiled.baseUrl === undefined) {
      throw new TypeError('This call needs the baseUrl option: the service whose catalogue to read');
    }
    return this.compiled.baseUrl;
  }

  private async cachedDescriptor(skill: string, version?: string, signal?: AbortSignal) {
    const cached = this.descriptors.get(cacheKey(skill, version));
    if (cached && Date.now() - cached.at < this.compiled.descriptorCacheMs) return cached.descriptor;
    return this.describe(skill, {
      ...(version === undefined ? {} : { version }),
      ...(signal ? { signal } : {}),
    });
  }

  private async resolve(execution: ExecutionRef, signal?: AbortSignal): Promise<ExecutionHandle> {
    if ('descriptor' in execution) return execution;
    const descriptor = await this.cachedDescriptor(execution.skillId, execution.version, signal);
    return this.handleOf(descriptor, execution.executionId);
  }

  private handleOf(
    descriptor: SkillDescriptor,
    executionId: string,
    accepted?: InvocationAccepted,
  ): ExecutionHandle {
    const { endpoint } = descriptor;
    const base = new URL(endpoint.url, this.compiled.baseUrl).toString();
    const cancel = endpoint['x-cancel_url'];
    const events = endpoint['x-events_url'];
    return {
      executionId,
      skillId: descriptor.id,
      status: accepted?.status ?? 'accepted',
      descriptor,
      statusUrl: executionUrl(endpoint.status_url, executionId, base),
      resultUrl: executionUrl(endpoint.result_url, executionId, base),
      ...(cancel ? { cancelUrl: executionUrl(cancel, executionId, base) } : {}),
      ...(events ? { eventsUrl: executionUrl(events, executionId, base) } : {}),
      accepted: accepted ?? { execution_id: executionId, status: 'accepted', skill_id: descriptor.id },
    };
  }

  /** The client's retry policy, from the descriptor's backoff unless the client set its own. */
  private policyOf(descriptor: SkillDescriptor) {
    const backoff = descriptor.endpoint.retry?.backoff_ms;
    const own = this.compiled.retry;
    return backoff && !this.compiled.ownInitialDelay ? { ...own, initialDelayMs: backoff } : own;
  }
}

type ClientCaller = CompiledOptions['caller'];

function cacheKey(skill: string, version?: string): string {
  return `${skill}\n${version ?? ''}`;
}

function unexpected(url: string, body: unknown): SkillrunError {
  return new SkillrunError('UNEXPECTED_RESPONSE', `${url} answered something that is not the protocol`, {
    details: body,
  });
}
