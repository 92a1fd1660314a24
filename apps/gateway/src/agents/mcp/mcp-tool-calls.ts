import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { type Execution, isTerminalStatus, type SkillDescriptor, SkillError } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { envelopeOf } from '../agent-error';
import { followExecution } from '../execution-follower';
import { endResult, errorResult, stillRunningResult, toTask } from './mcp-results';

/** One tools/call, as the MCP server hands it over. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Present when the call asks to run as a task (task-augmented execution). */
  task?: { ttl?: number };
  /** The request's header fields: its credentials, Idempotency-Key, traceparent. */
  headers: RequestHeaders;
  address: string;
  /** Aborts when the client cancels the request (notifications/cancelled) or goes away. */
  signal: AbortSignal;
  /** Aborts when the session ends or the gateway shuts down: the call stops following, and cancels nothing. */
  stop?: AbortSignal;
  /** Sends notifications/progress, when the request carried a progressToken. */
  progress?: (progress: number, message: string) => Promise<void>;
}

/**
 * tools/call: the skill is invoked through the InvocationService, exactly as POST invoke does
 * (auth, limits, idempotency, validation), and followed until it ends, for at most
 * MCP_CALL_WAIT_SECONDS. Its progress becomes notifications/progress; a cancelled request cancels
 * the execution. As a task, the call answers the task at once and the execution runs on.
 */
export class McpToolCalls {
  constructor(private readonly deps: AgentDeps) {}

  async call(call: ToolCall): Promise<CallToolResult | CreateTaskResult> {
    const { deps } = this;
    let descriptor: SkillDescriptor;
    let execution: Execution;
    try {
      descriptor = await this.describe(call);
      execution = await this.invoke(call, descriptor);
    } catch (error) {
      // A refused invocation (unknown tool, bad arguments, no access, a limit) is a result the model reads.
      return errorResult(envelopeOf(error, deps.logger, 'mcp tools/call'));
    }
    if (call.task) return { task: toTask(execution, this.taskSettings()) };
    return this.await(call, descriptor, execution);
  }

  taskSettings() {
    return { ttlMs: this.deps.retentionSeconds * 1000 };
  }

  private async describe(call: ToolCall): Promise<SkillDescriptor> {
    const viewer = principalOf(await this.deps.identities.of(call.headers));
    return this.deps.discovery.describe(call.name, undefined, viewer);
  }

  private async invoke(call: ToolCall, descriptor: SkillDescriptor): Promise<Execution> {
    const identity = await this.deps.identities.of(call.headers);
    const callerId = principalOf(identity)?.callerId ?? 'mcp-client';
    const outcome = await this.deps.invocations.invoke({
      skillId: descriptor.id,
      body: {
        caller: { id: callerId, type: 'service' },
        skill_id: descriptor.id,
        // The version the tool's schemas were read from.
        version: descriptor.version,
        inputs: call.arguments,
      },
      headers: call.headers,
      versionQuery: undefined,
      address: call.address,
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.accepted.execution;
  }

  /** Follows the execution to its end or the bound; a cancelled request cancels it. */
  private async await(
    call: ToolCall,
    descriptor: SkillDescriptor,
    started: Execution,
  ): Promise<CallToolResult> {
    const { deps } = this;
    const follow = {
      skillId: started.skill_id,
      executionId: started.execution_id,
      headers: call.headers,
    };
    let lastProgress: number | undefined;
    try {
      const execution = await followExecution(deps.executions, {
        ...follow,
        boundMs: deps.callWaitSeconds * 1000,
        signal: call.stop ? AbortSignal.any([call.signal, call.stop]) : call.signal,
        onChange: async (current) => {
          if (!call.progress || current.progress === undefined || current.progress === lastProgress) return;
          lastProgress = current.progress;
          await call.progress(current.progress, `${current.status}, ${current.progress}%`).catch(() => {});
        },
      });
      // The client cancelled the request; an abort because the session or the gateway ends is not that.
      if (call.signal.aborted && !call.stop?.aborted) {
        await deps.canceler.cancel(follow).catch((error: unknown) => {
          // Ended meanwhile: nothing to cancel.
          if (!(error instanceof SkillError)) throw error;
        });
        return errorResult({
          error: new SkillError('EXECUTION_CANCELED', 'Canceled by the client').toBody(),
        });
      }
      if (isTerminalStatus(execution.status)) {
        return endResult(descriptor, execution);
      }
      return stillRunningResult(execution, deps.baseUrl, deps.callWaitSeconds);
    } catch (error) {
      return errorResult(envelopeOf(error, deps.logger, 'mcp tools/call'));
    }
  }
}
