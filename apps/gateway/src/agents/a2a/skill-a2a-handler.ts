import {
  AgentCard,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { type A2ARequestHandler, type ServerCallContext, STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import {
  type Execution,
  httpStatusOf,
  isErrorCode,
  isTerminalStatus,
  type SkillDescriptor,
  SkillError,
} from '@skillrun/core';
import { outputArtifact, type TaskNote, type TaskPushVersion, toA2aTask } from '@skillrun/core/a2a';
import { principalOf } from '../../auth/identity';
import { knownErrorOf } from '../../http/known-error';
import { headerOf, type RequestHeaders } from '../../http/request-headers';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header';
import type { AgentDeps } from '../agent-deps';
import { agentFault, envelopeOf } from '../agent-error';
import { followExecution } from '../execution-follower';
import { readTask } from '../read-task';
import { agentCardJson } from './a2a-agent-card';
import { approvalMessageOf } from './approval-message';
import { DefaultSkillRoute } from './default-skill-route';
import { LlmRoute } from './llm-route';
import { messageSkillOf } from './message-skill';
import { chunkUpdate, streamEndUpdate } from './output-stream';
import { noRoute, type PlainTextRouter } from './plain-text-router';
import { TaskList } from './task-list';
import { TaskPushConfigs, taskPushOf } from './task-push-configs';

/** The header a2a-routes sets to the client's address before the SDK sees the request. */
export const CLIENT_ADDRESS_HEADER = 'x-skillrun-client-address';

/** Skills read per page when the card is built. */
const CARD_PAGE = 100;

type Json = Record<string, unknown>;

function headersOf(context: ServerCallContext): RequestHeaders {
  return (context.state.get(STATE_HEADERS_KEY) ?? {}) as RequestHeaders;
}

/** The A2A version a request was made in: what its push notifications are sent in. */
function versionOf(context: ServerCallContext): TaskPushVersion {
  return context.requestedVersion === '0.3' ? '0.3' : '1.0';
}

/**
 * A2A (1.0) mapped onto executions, without a task store of its own: SendMessage invokes the skill
 * the message names through the InvocationService (as POST invoke: auth, limits, idempotency,
 * validation), GetTask reads the execution, CancelTask cancels it, SubscribeToTask follows it as
 * the live status does. The task id is the execution id, so any gateway answers for any task.
 */
export class SkillA2aHandler implements A2ARequestHandler {
  /** Aborts what requests follow (blocking sends, streams) when the gateway shuts down. */
  private readonly closing = new AbortController();
  /** Chooses the skill of a message that names none. */
  private readonly plainText: PlainTextRouter;
  private readonly taskList: TaskList;
  private readonly pushConfigs: TaskPushConfigs;

  constructor(private readonly deps: AgentDeps) {
    this.plainText =
      deps.a2aDefaultSkill !== undefined
        ? new DefaultSkillRoute(deps.a2aDefaultSkill, deps.discovery)
        : deps.a2aRouterLlm
          ? new LlmRoute(deps.a2aRouterLlm, deps.discovery)
          : noRoute;
    this.taskList = new TaskList(deps);
    this.pushConfigs = new TaskPushConfigs({ ...deps, urls: deps.webhookUrls });
  }

  /** Ends every follow at once: streams close, blocking sends answer the task as it is. */
  close(): void {
    this.closing.abort();
  }

  /** The card's JSON (A2A's ProtoJSON), as GET /.well-known/agent-card.json answers it. */
  async agentCardJson(): Promise<Json> {
    const skills: SkillDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.discovery.search({ limit: CARD_PAGE, ...(cursor ? { cursor } : {}) });
      skills.push(...page.skills);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return agentCardJson(skills, {
      baseUrl: this.deps.baseUrl,
      providerName: this.deps.providerName,
      plainText: this.plainText !== noRoute,
    });
  }

  /** Asked by the SDK before it serves any request: Redis away fails them all as our error says. */
  async getAgentCard(): Promise<AgentCard> {
    try {
      return AgentCard.fromJSON(await this.agentCardJson());
    } catch (error) {
      // No request's headers here: a fault's request id is made now.
      throw this.a2aError(error, {});
    }
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card');
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const headers = headersOf(context);
    if (params.message?.taskId) return this.decide(params.message, headers);
    const { execution, note } = await this.start(params, headers, versionOf(context));
    if (params.configuration?.returnImmediately) return toA2aTask(execution, note);
    const followed = await this.follow(
      execution,
      headers,
      this.deps.a2aSendWaitSeconds * 1000,
      this.closing.signal,
    );
    return toA2aTask(followed, note);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse> {
    const headers = headersOf(context);
    const { execution, note } = await this.start(params, headers, versionOf(context));
    yield* this.stream(execution, note, headers);
  }

  /**
   * A message to a task in `input-required` (its execution awaits its approval) from an approver who
   * may decide it (an admin, or one its policy names): approved or rejected as POST
   * /approvals/{id}/approve or /reject, once (a second decision is APPROVAL_DECIDED). Answers the
   * task as the decision left it (`submitted`, or `failed` with APPROVAL_REJECTED).
   */
  private async decide(message: Message, headers: RequestHeaders): Promise<Task> {
    const taskId = message.taskId;
    const { verdict, reason } = approvalMessageOf(message);
    const execution = await this.guard(headers, () =>
      this.deps.approvals.decide(taskId, verdict, reason, headers, 'a2a'),
    );
    return toA2aTask(execution, await this.guard(headers, () => this.deps.notes.read(taskId)));
  }

  async getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const headers = headersOf(context);
    const execution = await this.read(params.id, headers);
    return toA2aTask(execution, await this.guard(headers, () => this.deps.notes.read(params.id)));
  }

  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const headers = headersOf(context);
    const execution = await this.read(params.id, headers);
    if (isTerminalStatus(execution.status)) {
      throw new TaskNotCancelableError(`Task ${params.id} has already ended (${execution.status})`);
    }
    try {
      const canceled = await this.deps.canceler.cancel({
        skillId: execution.skill_id,
        executionId: params.id,
        headers,
      });
      return toA2aTask(canceled, await this.deps.notes.read(params.id));
    } catch (error) {
      if (error instanceof SkillError && error.code === 'EXECUTION_ENDED') {
        throw new TaskNotCancelableError(`Task ${params.id} has already ended`);
      }
      throw this.a2aError(error, headers);
    }
  }

  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const headers = headersOf(context);
    const execution = await this.read(params.id, headers);
    const note = await this.guard(headers, () => this.deps.notes.read(params.id));
    yield* this.stream(execution, note, headers);
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.guard(headersOf(context), () => this.taskList.list(params, headersOf(context)));
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.guard(headersOf(context), () =>
      this.pushConfigs.create(params, versionOf(context), headersOf(context)),
    );
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.guard(headersOf(context), () => this.pushConfigs.get(params, headersOf(context)));
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.guard(headersOf(context), () => this.pushConfigs.list(params, headersOf(context)));
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.guard(headersOf(context), () => this.pushConfigs.remove(params, headersOf(context)));
  }

  /**
   * The task first, then a status update at each change and each chunk the skill streams as an
   * update of the artifact `output-stream`, in order; at the end the output as an artifact.
   */
  private async *stream(
    first: Execution,
    note: TaskNote,
    headers: RequestHeaders,
  ): AsyncGenerator<StreamResponse> {
    const firstTask = toA2aTask(first, note);
    yield { payload: { $case: 'task', value: firstTask } };
    if (isTerminalStatus(first.status)) return;
    // Changes and chunks in the order the follow tells them (every chunk before the end).
    const told: ({ change: Execution } | { chunk: unknown })[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const gone = new AbortController();
    const following = followExecution(this.deps.executions, {
      skillId: first.skill_id,
      executionId: first.execution_id,
      headers,
      boundMs: Number.POSITIVE_INFINITY,
      signal: AbortSignal.any([gone.signal, this.closing.signal]),
      onChange: (change) => {
        told.push({ change });
        wake?.();
      },
      onChunk: (chunk) => {
        told.push({ chunk });
        wake?.();
      },
    }).finally(() => {
      done = true;
      wake?.();
    });
    try {
      let last = JSON.stringify(firstTask.status);
      let chunks = 0;
      for (;;) {
        const next = told.shift();
        if (!next) {
          if (done) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if ('chunk' in next) {
          yield chunkUpdate(firstTask, next.chunk, chunks++ === 0);
          continue;
        }
        const execution = next.change;
        const task = toA2aTask(execution, note);
        const status = JSON.stringify(task.status);
        if (status === last && !isTerminalStatus(execution.status)) continue;
        last = status;
        if (isTerminalStatus(execution.status) && chunks > 0) yield streamEndUpdate(task);
        if (execution.status === 'completed') {
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId: task.id,
                contextId: task.contextId,
                artifact: outputArtifact(execution),
                append: false,
                lastChunk: true,
                metadata: undefined,
              },
            },
          };
        }
        yield {
          payload: {
            $case: 'statusUpdate',
            value: {
              taskId: task.id,
              contextId: task.contextId,
              status: task.status,
              metadata: task.metadata,
            },
          },
        };
        if (isTerminalStatus(execution.status)) break;
      }
      await this.guard(headers, () => following);
    } finally {
      // A client that went away stops the follow; the execution runs on.
      gone.abort();
    }
  }

  /**
   * Invokes the skill a message names with the inputs its data part carries, with the push
   * notification configuration it names, if any; notes the context the message names.
   */
  private async start(
    params: SendMessageRequest,
    headers: RequestHeaders,
    version: TaskPushVersion,
  ): Promise<{ execution: Execution; note: TaskNote }> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('The request has no message');
    if (message.taskId) {
      throw new UnsupportedOperationError(
        'A skill takes no further messages once its task exists (but a decision on its approval, to a blocking SendMessage); send a new message',
      );
    }
    const pushConfig = params.configuration?.taskPushNotificationConfig;
    try {
      const taskPush = pushConfig ? taskPushOf(pushConfig, version, this.deps.webhookUrls) : undefined;
      const viewer = principalOf(await this.deps.identities.of(headers));
      const owner = viewer?.callerId;
      const { skillId, inputs, routing } = await messageSkillOf(
        message,
        params.metadata,
        viewer,
        this.plainText,
      );
      const idempotencyKey = idempotencyKeyOf(headers);
      const note: TaskNote = {
        ...(message.contextId ? { contextId: message.contextId } : {}),
        ...(routing ? { routing } : {}),
      };
      const outcome = await this.deps.invocations.invoke({
        skillId,
        body: { caller: { id: owner ?? 'a2a-client', type: 'service' }, skill_id: skillId, inputs },
        headers,
        versionQuery: undefined,
        address: headerOf(headers, CLIENT_ADDRESS_HEADER) ?? 'unknown',
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        // Before the execution exists: its first change is pushed, and shows its context.
        beforeLaunch: {
          ...(taskPush ? { notify: 'change' as const } : {}),
          run: async (executionId) => {
            if (taskPush)
              await this.deps.webhooks.createForTask(owner, executionId, taskPush.url, taskPush.push);
            await this.deps.notes.write(executionId, owner, note);
          },
        },
      });
      if ('refused' in outcome) throw outcome.refused;
      const { execution } = outcome.accepted;
      return { execution, note };
    } catch (error) {
      throw this.a2aError(error, headers);
    }
  }

  private async follow(execution: Execution, headers: RequestHeaders, boundMs: number, signal: AbortSignal) {
    try {
      return await followExecution(this.deps.executions, {
        skillId: execution.skill_id,
        executionId: execution.execution_id,
        headers,
        boundMs,
        signal,
        // Input-required is where a blocking send answers: an approver decides (decide), not time.
        until: (current) => current.status === 'awaiting_approval',
      });
    } catch (error) {
      throw this.a2aError(error, headers);
    }
  }

  /** The execution a task id names, as the caller may read it; anyone else's is not found, as an unknown id is. */
  private async read(taskId: string, headers: RequestHeaders): Promise<Execution> {
    try {
      return await readTask(this.deps, taskId, headers);
    } catch (error) {
      throw this.a2aError(error, headers);
    }
  }

  /** What `work` answers, or what it throws as an A2A error. */
  private async guard<T>(headers: RequestHeaders, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.a2aError(error, headers);
    }
  }

  /**
   * Our error as an A2A error, our envelope in its metadata (code, and the envelope as JSON); an
   * A2A error (thrown here) as it is. A fault of our own code is logged once (agentFault) and
   * answered as an internal error with our envelope, which carries the request's id: the SDK would
   * answer it with the fault's own message, and nobody would log it.
   */
  private a2aError(thrown: unknown, headers: RequestHeaders): unknown {
    if (thrown instanceof A2AError) return thrown;
    const error = knownErrorOf(thrown) ?? agentFault(thrown, this.deps.logger, headers, 'a2a');
    const envelope = envelopeOf(error);
    const options = {
      message: error.message,
      metadata: { code: envelope.error.code, envelope: JSON.stringify(envelope) },
    };
    if (error.code === 'EXECUTION_NOT_FOUND') return new TaskNotFoundError(options);
    if (error.code === 'SERVICE_UNAVAILABLE') return error;
    // This agent is not set up for the message (A2A_DEFAULT_SKILL names a skill that takes no text).
    if (error.code === 'NOT_CONFIGURED') return new UnsupportedOperationError(options);
    // Not the request's fault (ours, or the router's model failed): an internal error, our envelope kept.
    if (isErrorCode(error.code) && httpStatusOf(error.code) >= 500) return new A2AError(options);
    return new RequestMalformedError(options);
  }
}
