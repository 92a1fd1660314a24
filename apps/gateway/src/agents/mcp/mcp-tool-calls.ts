import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { type Execution, isTerminalStatus, type SkillDescriptor, SkillError } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import { knownErrorOf } from '../../http/known-error';
import type { RequestHeaders } from '../../http/request-headers';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header';
import type { AgentDeps } from '../agent-deps';
import { envelopeOf } from '../agent-error';
import { followExecution } from '../execution-follower';
import { McpProgress, type ProgressReport } from './mcp-progress';
import { endResult, errorResult, stillRunningResult, toTask } from './mcp-results';

/** Sends a report, if there is one; a client gone meanwhile is the follow's to notice, not the report's. */
async function tell(send: (report: ProgressReport) => Promise<void>, report: ProgressReport | undefined) {
  if (report) await send(report).catch(() => {});
}

/** Our error, which a tool's result tells the model; anything else (a fault of ours) thrown on. */
function knownOrThrow(error: unknown): SkillError {
  const known = knownErrorOf(error);
  if (!known) throw error;
  return known;
}

/** One tools/call, as either era's MCP server hands it over. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Present when the call asks to run as a task (task-augmented execution, revision 2025-11-25). */
  task?: { ttl?: number };
  /** The request's header fields: its credentials, Idempotency-Key, traceparent. */
  headers: RequestHeaders;
  /** Its `_meta` budget (BUDGET_META_KEY): the execution's context.budget, checked as POST invoke's. */
  budget?: unknown;
  address: string;
  /** Aborts when the client cancels the request (notifications/cancelled, or closes its stream) or goes away. */
  signal: AbortSignal;
  /** Aborts when the session ends or the gateway shuts down: the call stops following, and cancels nothing. */
  stop?: AbortSignal;
  /** Sends notifications/progress, when the request carried a progressToken. */
  progress?: (report: ProgressReport) => Promise<void>;
}

/** A call whose skill was invoked, or the error result of its refusal. */
export type StartedCall = { descriptor: SkillDescriptor; execution: Execution } | { refused: CallToolResult };

/** What following a started call came to: its result, or the execution still running at the bound. */
export type FollowedCall = { result: CallToolResult } | { running: Execution };

/**
 * tools/call: the skill is invoked through the InvocationService, exactly as POST invoke does
 * (auth, limits, idempotency, validation), and followed until it ends, for at most
 * MCP_CALL_WAIT_SECONDS. With a progressToken, its progress and the chunks it streams become
 * notifications/progress on the call's own stream, in order, before the result (McpProgress); a
 * cancelled request cancels the execution. Each era says what a call still running at the bound answers: revision
 * 2025-11-25 where its result will be (or, as a task, the task at once), 2026-07-28 a task handle.
 */
export class McpToolCalls {
  constructor(private readonly deps: AgentDeps) {}

  /** tools/call of revision 2025-11-25. */
  async call(call: ToolCall): Promise<CallToolResult | CreateTaskResult> {
    const started = await this.start(call);
    if ('refused' in started) return started.refused;
    if (call.task) return { task: toTask(started.execution, this.taskSettings()) };
    const followed = await this.follow(call, started);
    if ('result' in followed) return followed.result;
    return stillRunningResult(followed.running, this.deps.baseUrl, this.deps.callWaitSeconds);
  }

  taskSettings() {
    return { ttlMs: this.deps.retentionSeconds * 1000 };
  }

  /**
   * Invokes the skill; a refusal (unknown tool, bad arguments, no access, a limit, Redis away) is a
   * result the model reads. A fault of ours is thrown on, for the server to log and answer as a
   * JSON-RPC error (withMcpErrors).
   */
  async start(call: ToolCall): Promise<StartedCall> {
    try {
      const descriptor = await this.describe(call);
      return { descriptor, execution: await this.invoke(call, descriptor) };
    } catch (error) {
      return { refused: errorResult(envelopeOf(knownOrThrow(error))) };
    }
  }

  /** Follows the execution to its end or the bound; a cancelled request cancels it. */
  async follow(
    call: ToolCall,
    started: { descriptor: SkillDescriptor; execution: Execution },
  ): Promise<FollowedCall> {
    const { deps } = this;
    const follow = {
      skillId: started.execution.skill_id,
      executionId: started.execution.execution_id,
      headers: call.headers,
    };
    const { progress } = call;
    const reports = new McpProgress();
    try {
      const execution = await followExecution(deps.executions, {
        ...follow,
        boundMs: deps.callWaitSeconds * 1000,
        signal: call.stop ? AbortSignal.any([call.signal, call.stop]) : call.signal,
        // Waiting for an approver, it waits for a person, not for the bound: answered at once.
        until: (current: Execution) => current.status === 'awaiting_approval',
        ...(progress === undefined
          ? {}
          : {
              onChange: (current: Execution) => tell(progress, reports.status(current)),
              onChunk: (chunk: unknown) => tell(progress, reports.chunk(chunk)),
            }),
      });
      // The client cancelled the request; an abort because the session or the gateway ends is not that.
      if (call.signal.aborted && !call.stop?.aborted) {
        await deps.canceler.cancel(follow).catch((error: unknown) => {
          // Ended meanwhile: nothing to cancel.
          if (!(error instanceof SkillError)) throw error;
        });
        return {
          result: errorResult({
            error: new SkillError('EXECUTION_CANCELED', 'Canceled by the client').toBody(),
          }),
        };
      }
      if (isTerminalStatus(execution.status)) return { result: endResult(started.descriptor, execution) };
      return { running: execution };
    } catch (error) {
      return { result: errorResult(envelopeOf(knownOrThrow(error))) };
    }
  }

  private async describe(call: ToolCall): Promise<SkillDescriptor> {
    const viewer = principalOf(await this.deps.identities.of(call.headers));
    return this.deps.discovery.describe(call.name, undefined, viewer);
  }

  private async invoke(call: ToolCall, descriptor: SkillDescriptor): Promise<Execution> {
    const identity = await this.deps.identities.of(call.headers);
    const callerId = principalOf(identity)?.callerId ?? 'mcp-client';
    const idempotencyKey = idempotencyKeyOf(call.headers);
    const outcome = await this.deps.invocations.invoke({
      skillId: descriptor.id,
      body: {
        caller: { id: callerId, type: 'service' },
        skill_id: descriptor.id,
        // The version the tool's schemas were read from.
        version: descriptor.version,
        inputs: call.arguments,
        ...(call.budget === undefined ? {} : { context: { budget: call.budget } }),
      },
      headers: call.headers,
      versionQuery: undefined,
      address: call.address,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.accepted.execution;
  }
}
