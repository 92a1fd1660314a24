import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Execution, isTerminalStatus } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import type { AgentDeps } from '../agent-deps';
import { followExecution } from '../execution-follower';
import { readTask } from '../read-task';
import { endResultOf } from './mcp-end-result';
import { acceptsFormElicitation, type PendingTask } from './mcp-task-elicitation';
import type { ToolCall } from './mcp-tool-calls';

/** What answering a retry came to: the tool's result (or the form again), or the execution going on. */
export type AnsweredApproval = { result: CallToolResult | InputRequiredResult } | { running: Execution };

/** The key of the one input request: the decision. */
const DECISION = 'decision';

/** How much of the inputs the form's message quotes; the rest is at GET /approvals/{id}. */
const MAX_INPUTS_CHARS = 2000;

/** The form: approve or reject, and why. */
const FORM_SCHEMA = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Decision',
      enum: ['approve', 'reject'],
      description: 'approve: the execution runs; reject: it fails with APPROVAL_REJECTED, unrun',
    },
    reason: { type: 'string' as const, title: 'Reason', description: 'Kept on the execution' },
  },
  required: ['decision'],
};

/**
 * Approvals over MCP's multi-round-trip requests (revision 2026-07-28), as task skills' hand-ins
 * are (McpTaskElicitation, whose signed requestState this shares, marked `approval`): a tools/call
 * whose execution waits for its approval, by a caller who may decide it (an approver the policy
 * names, or an admin), from a client that takes form elicitation, answers `input_required` with an
 * approve-or-reject form. The retry carries the answer: decided through ApprovalDesk as POST
 * /approvals/{id}/approve or /reject (once: a decision already made is APPROVAL_DECIDED, an error
 * result); approved, the call follows the execution as any call does; rejected (or the form
 * declined), its result is the APPROVAL_REJECTED error. A dismissed form leaves it pending. A caller
 * who may not decide is not asked: the call goes on as any call does (`input_required` as its
 * task's status, for a client of 2025-11-25's tasks).
 */
export class McpApprovalElicitation {
  constructor(
    private readonly deps: AgentDeps,
    private readonly mint: (pending: PendingTask, ctx: ServerContext) => Promise<string>,
  ) {}

  /** The form for a call whose execution waits for an approval this caller may give; else undefined. */
  async offer(
    call: ToolCall,
    execution: Execution,
    client: ClientCapabilities | undefined,
    ctx: ServerContext,
  ): Promise<InputRequiredResult | undefined> {
    if (execution.status !== 'awaiting_approval' || !acceptsFormElicitation(client)) return undefined;
    const principal = principalOf(await this.deps.identities.of(call.headers));
    if (!this.deps.approvals.mayDecide(execution, principal)) return undefined;
    return this.ask(execution, { executionId: execution.execution_id, tool: call.name, approval: true }, ctx);
  }

  /** A retry: the approval named by its (verified) requestState, decided with the form's answer. */
  async answer(call: ToolCall, pending: PendingTask, ctx: ServerContext): Promise<AnsweredApproval> {
    if (pending.tool !== call.name) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState is not valid for this call');
    }
    const { headers } = call;
    const execution = await readTask(this.deps, pending.executionId, headers);
    if (execution.status !== 'awaiting_approval') return this.followed(call, execution);
    const response = inputResponse(ctx.mcpReq.inputResponses, DECISION);
    if (response.kind === 'missing') return { result: await this.ask(execution, pending, ctx) };
    if (response.kind !== 'elicit') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'inputResponses.decision is not an elicitation result',
      );
    }
    if (response.action === 'cancel') return { running: execution };
    const content = response.content ?? {};
    const verdict = response.action === 'accept' && content.decision === 'approve' ? 'approved' : 'rejected';
    const reason = typeof content.reason === 'string' && content.reason !== '' ? content.reason : undefined;
    const decided = await this.deps.approvals.decide(pending.executionId, verdict, reason, headers, 'mcp');
    return this.followed(call, decided);
  }

  /** The execution followed to its end (or the call's bound), as a call follows one. */
  private async followed(call: ToolCall, execution: Execution): Promise<AnsweredApproval> {
    const current = isTerminalStatus(execution.status)
      ? execution
      : await followExecution(this.deps.executions, {
          skillId: execution.skill_id,
          executionId: execution.execution_id,
          headers: call.headers,
          boundMs: this.deps.callWaitSeconds * 1000,
          signal: call.stop ? AbortSignal.any([call.signal, call.stop]) : call.signal,
        });
    if (!isTerminalStatus(current.status)) return { running: current };
    return { result: await endResultOf(this.deps, current, call.headers) };
  }

  private async ask(
    execution: Execution,
    pending: PendingTask,
    ctx: ServerContext,
  ): Promise<InputRequiredResult> {
    const inputs = JSON.stringify((await this.deps.store.records.inputsOf(execution.execution_id)) ?? {});
    const quoted =
      inputs.length <= MAX_INPUTS_CHARS
        ? inputs
        : `${inputs.slice(0, MAX_INPUTS_CHARS)}… (cut: the whole approval is at ${this.deps.baseUrl}/approvals/${execution.execution_id})`;
    const message = `Approve ${execution.skill_id} ${execution.skill_version} for ${execution.caller.id}? (asked because: ${execution.approval?.when ?? 'always'}; decide by ${execution.approval?.deadline ?? 'its deadline'}) Its inputs: ${quoted}`;
    const form = inputRequired.elicit({ mode: 'form', message, requestedSchema: FORM_SCHEMA });
    return inputRequired({
      inputRequests: { [DECISION]: form },
      requestState: await this.mint(pending, ctx),
    });
  }
}
