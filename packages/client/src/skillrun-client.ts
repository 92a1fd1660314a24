import { ApprovalCalls } from './approval-calls.js';
import { backoffDelay, sleep } from './backoff.js';
import { BatchCalls } from './batch-calls.js';
import type {
  BatchOptions,
  CallOptions,
  ClientOptions,
  InvokeAndWaitOptions,
  InvokeOptions,
  WaitBatchOptions,
  WaitOptions,
} from './client-options.js';
import { type CompiledOptions, compileOptions } from './compiled-options.js';
import type { ExecutionHandle, ExecutionRef } from './execution-handle.js';
import { ExecutionWaiter, readExecution } from './execution-waiter.js';
import { historyFilterOf } from './history-filter.js';
import { HttpTransport } from './http-transport.js';
import type {
  AuditPage,
  AuditQuery,
  BatchAccepted,
  BatchItem,
  BatchView,
  BulkCancelResult,
  CallerIdentity,
  Execution,
  ExecutionPage,
  ExecutionQuery,
  InvocationAccepted,
  NewSchedule,
  ReplayRequest,
  RolloutRequest,
  Schedule,
  ScheduleBackfill,
  ScheduleBackfillAccepted,
  ScheduleChange,
  SchedulePage,
  ScheduleQuery,
  SkillDescriptor,
  SkillPage,
  SkillPauseState,
  SkillRollout,
  SkillSearchQuery,
  SkillVersionList,
  ToolDefinitions,
  ToolQuery,
} from './protocol.js';
import { isTerminal } from './protocol.js';
import { ServiceRequests } from './service-requests.js';
import type { SkillInput, SkillOutput } from './skill-types.js';
import { SkillrunError, unexpectedResponse } from './skillrun-error.js';
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
  private readonly service: ServiceRequests;
  private readonly batches: BatchCalls;
  /** skillrun's approvals: pending ones, deciding one, links, and an operator's policy per skill. */
  readonly approvals: ApprovalCalls;
  private readonly descriptors = new Map<string, { descriptor: SkillDescriptor; at: number }>();
  private ownCaller: Promise<ClientCaller> | undefined;

  constructor(options: ClientOptions = {}) {
    this.compiled = compileOptions(options);
    this.transport = new HttpTransport(this.compiled);
    this.waiter = new ExecutionWaiter(this.compiled, this.transport);
    this.service = new ServiceRequests(this.compiled, this.transport);
    this.batches = new BatchCalls(this.service, (url, signal) => this.callerFor(url, signal));
    this.approvals = new ApprovalCalls(this.service);
  }

  /** skillrun's GET /me of `baseUrl`: who the client's credentials say the caller is. */
  async me(options: CallOptions = {}): Promise<CallerIdentity> {
    const url = urlWithQuery(this.service.baseUrl(), '/me');
    const identity = await this.service.get<CallerIdentity>(url, options.signal);
    if (typeof identity?.caller_id !== 'string') throw unexpectedResponse(url, identity);
    return identity;
  }

  /** GET /skills of `baseUrl`: one page of the catalogue. */
  async listSkills(query: SkillSearchQuery = {}, options: CallOptions = {}): Promise<SkillPage> {
    const url = urlWithQuery(this.service.baseUrl(), '/skills', { ...query });
    const answer = await this.service.get<SkillPage>(url, options.signal);
    if (!Array.isArray(answer.skills)) throw unexpectedResponse(url, answer);
    return { skills: answer.skills, next_cursor: answer.next_cursor ?? null };
  }

  /**
   * skillrun's GET /tools of `baseUrl`: one page of the skills the caller may see as one agent
   * framework's tool definitions; a `tool_use` or function call names `skills[].tool_name`.
   */
  async tools(query: ToolQuery = {}, options: CallOptions = {}): Promise<ToolDefinitions> {
    const url = urlWithQuery(this.service.baseUrl(), '/tools', { ...query });
    const answer = await this.service.get<ToolDefinitions>(url, options.signal);
    if (!Array.isArray(answer?.tools) || !Array.isArray(answer.skills)) throw unexpectedResponse(url, answer);
    return { ...answer, next_cursor: answer.next_cursor ?? null };
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
      : urlWithQuery(this.service.baseUrl(), `/skills/${encodeURIComponent(skill)}`, {
          version: options.version,
        });
    const descriptor = await this.service.get<SkillDescriptor>(url, options.signal);
    if (typeof descriptor?.id !== 'string' || typeof descriptor.endpoint?.url !== 'string') {
      throw unexpectedResponse(url, descriptor);
    }
    this.descriptors.set(cacheKey(skill, options.version), { descriptor, at: Date.now() });
    return descriptor;
  }

  /** skillrun's GET /skills/{id}/versions of `baseUrl`: every available version, highest first. */
  async versions(skillId: string, options: CallOptions = {}): Promise<SkillVersionList> {
    const url = urlWithQuery(this.service.baseUrl(), `/skills/${encodeURIComponent(skillId)}/versions`);
    const list = await this.service.get<SkillVersionList>(url, options.signal);
    if (!Array.isArray(list?.versions)) throw unexpectedResponse(url, list);
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
    if (typeof body?.execution_id !== 'string') throw unexpectedResponse(url, body);
    if (answer.status === 200 && isTerminal(body.status)) {
      return { handle: this.handleOf(descriptor, body.execution_id), ended: body as Execution };
    }
    const handle = this.handleOf(descriptor, body.execution_id, body as InvocationAccepted);
    return { handle: answer.headers.get('debounced') === 'true' ? { ...handle, debounced: true } : handle };
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
   * The chunks of output the execution's skill streams as it runs (skillrun's `ctx.emit`, an llm
   * skill's text deltas), in order, each once, over its live status (`x-events_url`, reconnecting
   * with `Last-Event-ID`): `for await (const chunk of client.stream(execution))`. The loop ends when
   * the execution ends; the generator's return value is the execution as it ended (whatever its
   * status). Throws NOT_SUPPORTED when the descriptor names no live status, ENDPOINT_UNREACHABLE when
   * it cannot be had, WAIT_TIMEOUT past `timeoutMs`.
   */
  async *stream(
    execution: ExecutionRef,
    options: WaitOptions = {},
  ): AsyncGenerator<unknown, Execution, undefined> {
    return yield* this.waiter.stream(await this.resolve(execution, options.signal), options);
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
    if (typeof answer.body?.status !== 'string') throw unexpectedResponse(handle.cancelUrl, answer.body);
    return answer.body;
  }

  /**
   * POST /skills/{id}/replay/{execution_id} of `baseUrl` (skillrun's): the execution run again as a
   * new one, as this client's caller. A composite's replay reruns from `from_step` (by default the
   * step a failed one failed at), reusing the recorded outputs of the steps before it.
   */
  async replay(
    execution: ExecutionRef,
    request: ReplayRequest = {},
    options: CallOptions = {},
  ): Promise<ExecutionHandle> {
    const handle = await this.resolve(execution, options.signal);
    const path = `/skills/${encodeURIComponent(handle.skillId)}/replay/${encodeURIComponent(handle.executionId)}`;
    const url = urlWithQuery(this.service.baseUrl(), path);
    const answer = await this.service.send<InvocationAccepted>('POST', url, request, options.signal);
    if (typeof answer?.execution_id !== 'string') throw unexpectedResponse(url, answer);
    return this.handleOf(handle.descriptor, answer.execution_id, answer);
  }

  /** GET /executions of `baseUrl` (skillrun's history): the caller's executions, newest first. */
  async executions(query: ExecutionQuery = {}, options: CallOptions = {}): Promise<ExecutionPage> {
    const url = urlWithQuery(this.service.baseUrl(), '/executions', historyFilterOf(query));
    const answer = await this.service.get<ExecutionPage>(url, options.signal);
    if (!Array.isArray(answer.executions)) throw unexpectedResponse(url, answer);
    return { executions: answer.executions, next_cursor: answer.next_cursor ?? null };
  }

  /**
   * skillrun's POST /batches of `baseUrl`: up to 1,000 invocations in one request, each accepted or
   * refused on its own (its place in `executions` holds its execution id or its error). Items without
   * an idempotency_key get one, so that a retried POST starts nothing twice.
   */
  batch(items: BatchItem[], options: BatchOptions = {}): Promise<BatchAccepted> {
    return this.batches.submit(items, options);
  }

  /** skillrun's GET /batches/{id}: its executions' statuses, counted (`waitSeconds`: until they end). */
  getBatch(batchId: string, options: CallOptions & { waitSeconds?: number } = {}): Promise<BatchView> {
    return this.batches.get(batchId, options);
  }

  /** The batch once every execution of it has ended. */
  waitBatch(batchId: string, options: WaitBatchOptions = {}): Promise<BatchView> {
    return this.batches.wait(batchId, options);
  }

  /** skillrun's POST /batches/{id}/cancel: every execution of it that has not ended, canceled. */
  cancelBatch(batchId: string, options: CallOptions = {}): Promise<BatchView> {
    return this.batches.cancel(batchId, options);
  }

  /**
   * skillrun's POST /schedules of `baseUrl`: a skill invoked at every due time of a cron pattern or
   * an interval, as the caller the client's credentials name. Not tried again: a repeat could make
   * a second schedule.
   */
  async createSchedule(schedule: NewSchedule, options: CallOptions = {}): Promise<Schedule> {
    const url = urlWithQuery(this.service.baseUrl(), '/schedules');
    const once = { ...this.compiled.retry, maxAttempts: 1 };
    return scheduleOf(url, await this.service.send<Schedule>('POST', url, schedule, options.signal, once));
  }

  /** skillrun's GET /schedules: the caller's schedules (an admin's: everyone's), in the order they were made. */
  async listSchedules(query: ScheduleQuery = {}, options: CallOptions = {}): Promise<SchedulePage> {
    const url = urlWithQuery(this.service.baseUrl(), '/schedules', { ...query });
    const answer = await this.service.get<SchedulePage>(url, options.signal);
    if (!Array.isArray(answer?.schedules)) throw unexpectedResponse(url, answer);
    return { schedules: answer.schedules, next_cursor: answer.next_cursor ?? null };
  }

  /** skillrun's GET /schedules/{id}: a schedule, with its latest runs. */
  async getSchedule(scheduleId: string, options: CallOptions = {}): Promise<Schedule> {
    const url = scheduleUrl(this.service.baseUrl(), scheduleId);
    return scheduleOf(url, await this.service.get<Schedule>(url, options.signal));
  }

  /** skillrun's PATCH /schedules/{id}: pauses (`{paused: true}`), resumes, or changes a schedule. */
  async updateSchedule(
    scheduleId: string,
    change: ScheduleChange,
    options: CallOptions = {},
  ): Promise<Schedule> {
    const url = scheduleUrl(this.service.baseUrl(), scheduleId);
    return scheduleOf(url, await this.service.send<Schedule>('PATCH', url, change, options.signal));
  }

  /**
   * skillrun's POST /schedules/{id}/backfill: each due time of a past window that has no run runs
   * now, once (asked again, a due time that has run is not run again).
   */
  async backfillSchedule(
    scheduleId: string,
    window: ScheduleBackfill,
    options: CallOptions = {},
  ): Promise<ScheduleBackfillAccepted> {
    const url = `${scheduleUrl(this.service.baseUrl(), scheduleId)}/backfill`;
    const answer = await this.service.send<ScheduleBackfillAccepted>('POST', url, window, options.signal);
    if (!Array.isArray(answer?.queued)) throw unexpectedResponse(url, answer);
    return answer;
  }

  /** skillrun's DELETE /schedules/{id}: nothing more runs of it (its executions stay). */
  async deleteSchedule(scheduleId: string, options: CallOptions = {}): Promise<void> {
    await this.service.send(
      'DELETE',
      scheduleUrl(this.service.baseUrl(), scheduleId),
      undefined,
      options.signal,
    );
  }

  /**
   * skillrun's GET /audit (admins only): the administrative acts recorded, newest first, refusals
   * included; follow `next_cursor` (with the same filters) for more.
   */
  async audit(query: AuditQuery = {}, options: CallOptions = {}): Promise<AuditPage> {
    const url = urlWithQuery(this.service.baseUrl(), '/audit', { ...query });
    const answer = await this.service.get<AuditPage>(url, options.signal);
    if (!Array.isArray(answer?.records)) throw unexpectedResponse(url, answer);
    return { records: answer.records, next_cursor: answer.next_cursor ?? null };
  }

  /**
   * POST /executions/cancel of `baseUrl` (skillrun's bulk cancel): cancels the executions the filter
   * of `executions()` finds that have not ended, the caller's own (an admin's: anyone's), up to
   * `limit` (at most 1,000, default 100) per call. Send the filter again with `next_cursor` until
   * it is null.
   */
  async cancelExecutions(filter: ExecutionQuery = {}, options: CallOptions = {}): Promise<BulkCancelResult> {
    const url = urlWithQuery(this.service.baseUrl(), '/executions/cancel');
    const answer = await this.service.send<BulkCancelResult>(
      'POST',
      url,
      historyFilterOf(filter),
      options.signal,
    );
    if (typeof answer?.canceled !== 'number') throw unexpectedResponse(url, answer);
    return { canceled: answer.canceled, next_cursor: answer.next_cursor ?? null };
  }

  /**
   * POST /skills/{id}/pause of `baseUrl` (skillrun's, for an admin or the id's namespace): the
   * skill's executions are accepted and wait, none starts, until resumeSkill.
   */
  pauseSkill(skillId: string, options: CallOptions = {}): Promise<SkillPauseState> {
    return this.pauseAction(skillId, 'pause', options.signal);
  }

  /** POST /skills/{id}/resume of `baseUrl`: the paused skill's waiting executions start. */
  resumeSkill(skillId: string, options: CallOptions = {}): Promise<SkillPauseState> {
    return this.pauseAction(skillId, 'resume', options.signal);
  }

  private async pauseAction(
    skillId: string,
    action: 'pause' | 'resume',
    signal?: AbortSignal,
  ): Promise<SkillPauseState> {
    const url = urlWithQuery(this.service.baseUrl(), `/skills/${encodeURIComponent(skillId)}/${action}`);
    const state = await this.service.send<SkillPauseState>('POST', url, undefined, signal);
    if (typeof state?.paused !== 'boolean') throw unexpectedResponse(url, state);
    return state;
  }

  /** GET /skills/{id}/rollout of `baseUrl` (skillrun's, for an admin): the skill's ramp and pins. */
  async getRollout(skillId: string, options: CallOptions = {}): Promise<SkillRollout> {
    const url = this.rolloutUrl(skillId);
    return rolloutOf(url, await this.service.get<SkillRollout>(url, options.signal));
  }

  /**
   * POST /skills/{id}/rollout: `percent` (0–100) of the skill's unpinned callers, the same ones each
   * time, run `version`; the others the latest other version.
   */
  async rampVersion(skillId: string, ramp: RolloutRequest, options: CallOptions = {}): Promise<SkillRollout> {
    const url = this.rolloutUrl(skillId);
    return rolloutOf(url, await this.service.send<SkillRollout>('POST', url, ramp, options.signal));
  }

  /** DELETE /skills/{id}/rollout, the rollback: the ramped version goes to 0% of the unpinned callers. */
  async rollBack(skillId: string, options: CallOptions = {}): Promise<SkillRollout> {
    const url = this.rolloutUrl(skillId);
    return rolloutOf(url, await this.service.send<SkillRollout>('DELETE', url, undefined, options.signal));
  }

  /** PUT /skills/{id}/pins/{caller}: the caller's invocations run the best version in `range`. */
  async pinCaller(
    skillId: string,
    caller: string,
    range: string,
    options: CallOptions = {},
  ): Promise<SkillRollout> {
    const url = this.pinUrl(skillId, caller);
    const answer = await this.service.send<SkillRollout>('PUT', url, { version: range }, options.signal);
    return rolloutOf(url, answer);
  }

  /** DELETE /skills/{id}/pins/{caller}: the caller follows the ramp again. */
  async unpinCaller(skillId: string, caller: string, options: CallOptions = {}): Promise<SkillRollout> {
    const url = this.pinUrl(skillId, caller);
    return rolloutOf(url, await this.service.send<SkillRollout>('DELETE', url, undefined, options.signal));
  }

  private rolloutUrl(skillId: string): string {
    return urlWithQuery(this.service.baseUrl(), `/skills/${encodeURIComponent(skillId)}/rollout`);
  }

  private pinUrl(skillId: string, caller: string): string {
    const path = `/skills/${encodeURIComponent(skillId)}/pins/${encodeURIComponent(caller)}`;
    return urlWithQuery(this.service.baseUrl(), path);
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

function scheduleUrl(baseUrl: string, scheduleId: string): string {
  return urlWithQuery(baseUrl, `/schedules/${encodeURIComponent(scheduleId)}`);
}

function scheduleOf(url: string, answer: Schedule): Schedule {
  if (typeof answer?.schedule_id !== 'string') throw unexpectedResponse(url, answer);
  return answer;
}

/** A rollout as the service answered it; anything else is not the protocol (unexpectedResponse). */
function rolloutOf(url: string, rollout: SkillRollout | undefined): SkillRollout {
  if (!Array.isArray(rollout?.pins)) throw unexpectedResponse(url, rollout);
  return rollout;
}
