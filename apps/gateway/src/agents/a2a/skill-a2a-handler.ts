import {
  AgentCard,
  type ListTaskPushNotificationConfigsResponse,
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
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { type A2ARequestHandler, type ServerCallContext, STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import { type Execution, isTerminalStatus, type SkillDescriptor, SkillError } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import { knownErrorOf } from '../../http/known-error';
import { headerOf, type RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { envelopeOf } from '../agent-error';
import { followExecution } from '../execution-follower';
import { readTask } from '../read-task';
import { agentCardJson } from './a2a-agent-card';
import { outputArtifact, toA2aTask } from './a2a-tasks';

/** The header a2a-routes sets to the client's address before the SDK sees the request. */
export const CLIENT_ADDRESS_HEADER = 'x-skillrun-client-address';

/** Skills read per page when the card is built. */
const CARD_PAGE = 100;

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function headersOf(context: ServerCallContext): RequestHeaders {
  return (context.state.get(STATE_HEADERS_KEY) ?? {}) as RequestHeaders;
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

  constructor(private readonly deps: AgentDeps) {}

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
    return agentCardJson(skills, { baseUrl: this.deps.baseUrl, providerName: this.deps.providerName });
  }

  /** Asked by the SDK before it serves any request: Redis away fails them all as our error says. */
  async getAgentCard(): Promise<AgentCard> {
    try {
      return AgentCard.fromJSON(await this.agentCardJson());
    } catch (error) {
      throw this.a2aError(error);
    }
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card');
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const headers = headersOf(context);
    const execution = await this.start(params, headers);
    if (params.configuration?.returnImmediately) return toA2aTask(execution);
    const followed = await this.follow(
      execution,
      headers,
      this.deps.a2aSendWaitSeconds * 1000,
      this.closing.signal,
    );
    return toA2aTask(followed);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse> {
    const headers = headersOf(context);
    const execution = await this.start(params, headers);
    yield* this.stream(execution, headers);
  }

  async getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return toA2aTask(await this.read(params.id, headersOf(context)));
  }

  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const headers = headersOf(context);
    const execution = await this.read(params.id, headers);
    if (isTerminalStatus(execution.status)) {
      throw new TaskNotCancelableError(`Task ${params.id} has already ended (${execution.status})`);
    }
    try {
      return toA2aTask(
        await this.deps.canceler.cancel({ skillId: execution.skill_id, executionId: params.id, headers }),
      );
    } catch (error) {
      if (error instanceof SkillError && error.code === 'EXECUTION_ENDED') {
        throw new TaskNotCancelableError(`Task ${params.id} has already ended`);
      }
      throw this.a2aError(error);
    }
  }

  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const headers = headersOf(context);
    const execution = await this.read(params.id, headers);
    yield* this.stream(execution, headers);
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not offered: GET /executions lists executions');
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError(
      'Push notifications are not offered: use a webhook (see POST /webhooks)',
    );
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError('Push notifications are not offered');
  }

  async listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError('Push notifications are not offered');
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError('Push notifications are not offered');
  }

  /** The task first, then a status update at each change, and the output as an artifact at the end. */
  private async *stream(first: Execution, headers: RequestHeaders): AsyncGenerator<StreamResponse> {
    yield { payload: { $case: 'task', value: toA2aTask(first) } };
    if (isTerminalStatus(first.status)) return;
    const changes: Execution[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const gone = new AbortController();
    const following = followExecution(this.deps.executions, {
      skillId: first.skill_id,
      executionId: first.execution_id,
      headers,
      boundMs: Number.POSITIVE_INFINITY,
      signal: AbortSignal.any([gone.signal, this.closing.signal]),
      onChange: (execution) => {
        changes.push(execution);
        wake?.();
      },
    }).finally(() => {
      done = true;
      wake?.();
    });
    try {
      let last = JSON.stringify(toA2aTask(first).status);
      for (;;) {
        const execution = changes.shift();
        if (!execution) {
          if (done) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        const task = toA2aTask(execution);
        const status = JSON.stringify(task.status);
        if (status === last && !isTerminalStatus(execution.status)) continue;
        last = status;
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
      await following;
    } finally {
      // A client that went away stops the follow; the execution runs on.
      gone.abort();
    }
  }

  /** Invokes the skill a message names with the inputs its data part carries. */
  private async start(params: SendMessageRequest, headers: RequestHeaders): Promise<Execution> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('The request has no message');
    if (message.taskId) {
      throw new UnsupportedOperationError(
        'A skill takes no further messages once its task exists; send a new message',
      );
    }
    const { skillId, inputs } = this.skillAndInputs(message, params.metadata);
    try {
      const identity = await this.deps.identities.of(headers);
      const callerId = principalOf(identity)?.callerId ?? 'a2a-client';
      const outcome = await this.deps.invocations.invoke({
        skillId,
        body: { caller: { id: callerId, type: 'service' }, skill_id: skillId, inputs },
        headers,
        versionQuery: undefined,
        address: headerOf(headers, CLIENT_ADDRESS_HEADER) ?? 'unknown',
      });
      if ('refused' in outcome) throw outcome.refused;
      return outcome.accepted.execution;
    } catch (error) {
      throw this.a2aError(error);
    }
  }

  /**
   * The skill: `skill_id` in the message's (or the request's) metadata, or in the data part beside
   * `inputs`. The inputs: the data part (its `inputs` when it names the skill itself).
   */
  private skillAndInputs(
    message: Message,
    requestMetadata: Json | undefined,
  ): { skillId: string; inputs: Json } {
    const data = message.parts.find((part) => part.content?.$case === 'data')?.content?.value as unknown;
    const named = [message.metadata?.skill_id, requestMetadata?.skill_id].find(
      (id) => typeof id === 'string',
    );
    if (typeof named === 'string') {
      if (data !== undefined && !isJson(data))
        throw new RequestMalformedError('The data part must be a JSON object (the inputs)');
      return { skillId: named, inputs: data ?? {} };
    }
    if (isJson(data) && typeof data.skill_id === 'string') {
      const inputs = data.inputs ?? {};
      if (!isJson(inputs)) throw new RequestMalformedError('inputs must be a JSON object');
      return { skillId: data.skill_id, inputs };
    }
    throw new RequestMalformedError(
      'Name the skill: metadata {"skill_id": "..."} on the message with a data part carrying its inputs, or a data part {"skill_id": "...", "inputs": {...}}',
    );
  }

  private async follow(execution: Execution, headers: RequestHeaders, boundMs: number, signal: AbortSignal) {
    try {
      return await followExecution(this.deps.executions, {
        skillId: execution.skill_id,
        executionId: execution.execution_id,
        headers,
        boundMs,
        signal,
      });
    } catch (error) {
      throw this.a2aError(error);
    }
  }

  /** The execution a task id names, as the caller may read it; anyone else's is not found, as an unknown id is. */
  private async read(taskId: string, headers: RequestHeaders): Promise<Execution> {
    try {
      return await readTask(this.deps, taskId, headers);
    } catch (error) {
      throw this.a2aError(error);
    }
  }

  /** Our error as an A2A error, our envelope in its metadata (code, and the envelope as JSON). */
  private a2aError(thrown: unknown): A2AError | unknown {
    // A2A errors (thrown here) and anything unexpected go as they are: the SDK answers the latter as internal errors.
    const error = thrown instanceof A2AError ? undefined : knownErrorOf(thrown);
    if (!error) return thrown;
    const envelope = envelopeOf(error, this.deps.logger, 'a2a');
    const options = {
      message: error.message,
      metadata: { code: envelope.error.code, envelope: JSON.stringify(envelope) },
    };
    if (error.code === 'EXECUTION_NOT_FOUND') return new TaskNotFoundError(options);
    if (error.code === 'SERVICE_UNAVAILABLE') return error;
    return new RequestMalformedError(options);
  }
}
