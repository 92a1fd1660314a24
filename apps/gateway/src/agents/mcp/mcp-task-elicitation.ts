import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Execution, isTerminalStatus, type SkillDescriptor, type TaskView } from '@skillrun/core';
import { knownErrorOf } from '../../http/known-error';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { followExecution } from '../execution-follower';
import { readTask } from '../read-task';
import { elicitationSchemaOf } from './elicitation-schema';
import { endResultOf } from './mcp-end-result';
import type { ToolCall } from './mcp-tool-calls';

/**
 * What a requestState names, signed: the execution whose task the retry hands in (or, `approval`,
 * whose approval it decides: McpApprovalElicitation), and the tool it was called as.
 */
export interface PendingTask {
  executionId: string;
  tool: string;
  approval?: true;
}

/** What answering a retry came to: the tool's result (or the form again), or the task still open. */
export type AnsweredCall = { result: CallToolResult | InputRequiredResult } | { running: Execution };

/** The key of the one input request: the task's output. */
const OUTPUT = 'output';

/** The use the requestState's key is derived for (TaskSecret). */
const KEY_USE = 'skillrun:mcp-request-state';

/** How much of a task's inputs the form's message quotes; the rest is at GET /tasks/{id}. */
const MAX_INPUTS_CHARS = 2000;

/** The reason a task declined at an MCP client's form is recorded with. */
const DECLINED = 'declined at the MCP client';

/** Whether the request's client takes form-mode elicitation (a bare `elicitation: {}` means form). */
export function acceptsFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * Task skills over MCP's multi-round-trip requests (revision 2026-07-28): a `task` skill called by a
 * client that takes form elicitation, by a caller who may take the task, answers `input_required`
 * with a form built from the skill's output schema, so that the person at the client hands the task
 * in by filling it. The client's retry carries the form's answer (`inputResponses.output`) and the
 * `requestState` the first answer gave, which names the execution and is signed (HMAC, a key every
 * gateway derives from the task links' secret), bound to the method and the caller (another
 * caller's is refused as a forged one is, `-32602`) and expires after TASK_LINK_TTL_SECONDS. Any
 * gateway answers the retry: nothing is kept between the two requests but the execution.
 *
 * The answer is handed in by TaskDesk, as POST /tasks/{id}/complete hands it in (validated against
 * the output schema, then one atomic write: `-32602` naming each violation, and the task stays
 * open); a declined form declines the task, a dismissed one leaves it open, and a retry without
 * the answer is asked again. A task whose output no form can ask for (elicitationSchemaOf), or that
 * the caller may not take, goes on as any call does (a task handle, or where its result will be).
 */
export class McpTaskElicitation {
  private codec: Promise<RequestStateCodec<PendingTask>> | undefined;

  constructor(private readonly deps: AgentDeps) {}

  /** A signed requestState naming `pending`, bound to the request's method and caller. */
  readonly mint = async (pending: PendingTask, ctx: ServerContext): Promise<string> =>
    (await this.states()).mint(pending, ctx);

  /** ServerOptions.requestState.verify: the SDK refuses what this throws for as `-32602` before any handler runs. */
  readonly verify = async (state: string, ctx: ServerContext): Promise<PendingTask> =>
    (await this.states()).verify(state, ctx);

  /**
   * The form for a call just started, once its task is open (a worker opens it at once, within
   * MCP_CALL_WAIT_SECONDS); undefined when the call is not one to ask by form.
   */
  async offer(
    call: ToolCall,
    started: { descriptor: SkillDescriptor; execution: Execution },
    client: ClientCapabilities | undefined,
    ctx: ServerContext,
  ): Promise<InputRequiredResult | undefined> {
    if (started.descriptor.capability_type !== 'task' || !acceptsFormElicitation(client)) return undefined;
    const { execution } = started;
    const opened = await followExecution(this.deps.executions, {
      skillId: execution.skill_id,
      executionId: execution.execution_id,
      headers: call.headers,
      boundMs: this.deps.callWaitSeconds * 1000,
      signal: call.stop ? AbortSignal.any([call.signal, call.stop]) : call.signal,
      until: (current) => current.task !== undefined,
    }).catch(refusalAsUndefined);
    if (!opened?.task || isTerminalStatus(opened.status)) return undefined;
    const view = await this.deps.tasks.get(opened.execution_id, call.headers).catch(refusalAsUndefined);
    const form = view && this.form(view);
    if (!form) return undefined;
    return this.ask(form, { executionId: opened.execution_id, tool: call.name }, ctx);
  }

  /**
   * A retry: the task named by its (verified) requestState, handed in with the form's answer. An
   * execution that has ended meanwhile (handed in another way, timed out) answers its result.
   */
  async answer(call: ToolCall, pending: PendingTask, ctx: ServerContext): Promise<AnsweredCall> {
    // Bound to the tool too: a state shown to another tool's call is refused as a forged one.
    if (pending.tool !== call.name) throw invalidRequestState();
    const { headers } = call;
    const execution = await readTask(this.deps, pending.executionId, headers);
    if (isTerminalStatus(execution.status)) return { result: await this.ended(execution, headers) };
    const responses = ctx.mcpReq.inputResponses;
    const response = inputResponse(responses, OUTPUT);
    if (response.kind === 'missing') {
      const sent =
        Object.hasOwn(responses ?? {}, OUTPUT) || ctx.mcpReq.droppedInputResponseKeys?.includes(OUTPUT);
      if (sent)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'inputResponses.output is not an elicitation result',
        );
      return { result: await this.askAgain(pending, headers, ctx) };
    }
    if (response.kind !== 'elicit') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'inputResponses.output is not an elicitation result',
      );
    }
    switch (response.action) {
      case 'accept': {
        const output = response.content ?? {};
        const handed = await this.deps.tasks.complete(pending.executionId, output, headers);
        return { result: await this.ended(handed, headers) };
      }
      case 'decline': {
        const handed = await this.deps.tasks.decline(pending.executionId, DECLINED, headers);
        return { result: await this.ended(handed, headers) };
      }
      case 'cancel':
        // Dismissed: the task stays open for whoever takes it next, at this client or elsewhere.
        return { running: execution };
    }
  }

  private async askAgain(
    pending: PendingTask,
    headers: RequestHeaders,
    ctx: ServerContext,
  ): Promise<InputRequiredResult> {
    const view = await this.deps.tasks.get(pending.executionId, headers);
    const form = this.form(view);
    // The output schema of a version is fixed: a form offered once fits again.
    if (!form) throw invalidRequestState();
    return this.ask(form, pending, ctx);
  }

  private async ask(
    form: InputRequest,
    pending: PendingTask,
    ctx: ServerContext,
  ): Promise<InputRequiredResult> {
    const requestState = await this.mint(pending, ctx);
    return inputRequired({ inputRequests: { [OUTPUT]: form }, requestState });
  }

  /** The elicitation a task's view comes to, or undefined when its output schema is not a form's. */
  private form(view: TaskView): InputRequest | undefined {
    const requestedSchema = elicitationSchemaOf(view.output_schema);
    if (!requestedSchema) return undefined;
    const inputs = JSON.stringify(view.inputs);
    const quoted =
      inputs.length <= MAX_INPUTS_CHARS
        ? inputs
        : `${inputs.slice(0, MAX_INPUTS_CHARS)}… (cut: the whole task is at ${this.deps.baseUrl}/tasks/${view.execution_id})`;
    const message = `${view.instructions ?? view.description}\n\nTask ${view.execution_id} (${view.skill_id} ${view.skill_version}), its inputs: ${quoted}`;
    return inputRequired.elicit({ mode: 'form', message, requestedSchema });
  }

  private ended(execution: Execution, headers: RequestHeaders): Promise<CallToolResult> {
    return endResultOf(this.deps, execution, headers);
  }

  private states(): Promise<RequestStateCodec<PendingTask>> {
    this.codec ??= this.deps.taskSecret
      .derivedKey(KEY_USE)
      .then((key) =>
        createRequestStateCodec<PendingTask>({
          key,
          ttlSeconds: this.deps.handInSeconds,
          bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
        }),
      )
      .catch((error: unknown) => {
        this.codec = undefined;
        throw error;
      });
    return this.codec;
  }
}

/** As the SDK refuses a requestState that fails verification: one answer, whatever the reason. */
function invalidRequestState(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
    reason: 'invalid_request_state',
  });
}

/**
 * A refusal (not the caller's task to take, not open, Redis away) means: not by form; the call goes
 * on as any call does, and says so in its result. A fault of our own code is thrown on.
 */
function refusalAsUndefined(error: unknown): undefined {
  if (knownErrorOf(error)) return undefined;
  throw error;
}
