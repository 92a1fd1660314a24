import {
  type ApprovalLink,
  type ApprovalListPage,
  type ApprovalListQuery,
  type ApprovalView,
  type Execution,
  type Principal,
  SkillError,
} from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore, SkillRegistry } from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import { isAdmin, principalOf } from '../auth/identity';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import type { RequestHeaders } from '../http/request-headers';
import type { ApprovalLinks } from './approval-links';

export interface ApprovalDeskDeps {
  store: ExecutionStore;
  /** What decides an approval, once (ExecutionEngine.decide), confirmed on the replicas. */
  engine: Pick<ExecutionEngine, 'decide'>;
  registry: SkillRegistry;
  identities: Identities;
  links: ApprovalLinks;
  baseUrl: string;
}

/** approve or reject. */
export type Verdict = 'approved' | 'rejected';

/** Where a decision came from: the REST API (or the CLI and console over it), a link, MCP, A2A. */
export type Channel = 'api' | 'link' | 'mcp' | 'a2a';

/** How many pending approvals one listing looks at, at most, before it answers what it found. */
const SCAN_BUDGET = 1000;
const READ_CHUNK = 100;

/**
 * The approvals executions wait for (status `awaiting_approval`), for their approvers: the pending
 * ones each caller may decide, approving or rejecting one (exactly once: ApprovalDecisions), by
 * credentials or by a one-time link that acts for the approver who issued it. Who may decide: an
 * admin, or a caller the policy names in `approvers` (frozen on the execution when it was
 * accepted). A caller who may not decide an approval does not see it (404).
 */
export class ApprovalDesk {
  constructor(private readonly deps: ApprovalDeskDeps) {}

  async list(query: ApprovalListQuery, headers: RequestHeaders): Promise<ApprovalListPage> {
    const principal = await this.principal(headers);
    const found: ApprovalView[] = [];
    let after = query.cursor === undefined ? undefined : afterOf(query.cursor);
    let exhausted = false;
    for (let looked = 0; looked < SCAN_BUDGET && found.length < query.limit; looked += READ_CHUNK) {
      const entries = await this.deps.store.approvals.list(after, READ_CHUNK);
      for (const entry of entries) {
        after = entry;
        const execution = await this.deps.store.records.get(entry.id).catch(() => null);
        if (execution?.status !== 'awaiting_approval') continue;
        if (query.skill_id !== undefined && execution.skill_id !== query.skill_id) continue;
        if (mayDecide(execution, principal)) found.push(await this.view(execution));
        if (found.length === query.limit) break;
      }
      if (entries.length < READ_CHUNK && after === entries.at(-1)) {
        exhausted = true;
        break;
      }
    }
    return {
      approvals: found,
      next_cursor: exhausted || after === undefined ? null : encodeCursor(after),
    };
  }

  async get(executionId: string, headers: RequestHeaders): Promise<ApprovalView> {
    return this.view(await this.decidable(executionId, await this.principal(headers)));
  }

  /** Approves or rejects, with an optional reason: the execution as it is after. */
  async decide(
    executionId: string,
    verdict: Verdict,
    reason: string | undefined,
    headers: RequestHeaders,
    via: Channel = 'api',
  ): Promise<Execution> {
    return this.decideFor(executionId, verdict, await this.principal(headers), via, reason);
  }

  /**
   * Decides for `principal`, whom an agent's surface (MCP, A2A) has identified: 404 unless they may,
   * 409 APPROVAL_DECIDED unless it is pending.
   */
  async decideFor(
    executionId: string,
    verdict: Verdict,
    principal: Principal,
    via: Channel,
    reason?: string,
  ): Promise<Execution> {
    return this.decideAs(
      await this.decidable(executionId, principal),
      verdict,
      principal.callerId,
      via,
      reason,
    );
  }

  /** Whether `principal` may decide this execution's approval (an admin, or a named approver). */
  mayDecide(execution: Execution, principal: Principal | undefined): boolean {
    return principal !== undefined && mayDecide(execution, principal);
  }

  /** A one-time link that decides the approval without credentials, on the approver's behalf. */
  async link(executionId: string, headers: RequestHeaders): Promise<ApprovalLink> {
    const principal = await this.principal(headers);
    await this.decidable(executionId, principal);
    const { token, expiresAt } = await this.deps.links.issue(executionId, principal.callerId);
    return {
      url: `${this.deps.baseUrl}/approvals/link/${token}`,
      expires_at: new Date(expiresAt).toISOString(),
    };
  }

  async getByLink(token: string): Promise<ApprovalView> {
    const { executionId } = await this.deps.links.verify(token);
    return this.view(await this.pending(executionId));
  }

  async decideByLink(token: string, verdict: Verdict, reason: string | undefined): Promise<Execution> {
    const link = await this.deps.links.verify(token);
    return this.decideAs(await this.pending(link.executionId), verdict, link.callerId, 'link', reason);
  }

  private async decideAs(
    execution: Execution,
    verdict: Verdict,
    by: string,
    via: Channel,
    reason: string | undefined,
  ): Promise<Execution> {
    const id = execution.execution_id;
    const written = await this.deps.engine.decide(execution, {
      state: verdict,
      by,
      via,
      ...(reason ? { reason } : {}),
    });
    if (written === 'missing') throw notFound(id);
    if (written !== 'applied') throw await this.decided(id);
    const after = await this.deps.store.records.get(id);
    if (!after) throw notFound(id);
    return after;
  }

  /** APPROVAL_DECIDED, saying what came of it: decisions are never undone, so a read now says it. */
  private async decided(executionId: string): Promise<SkillError> {
    const execution = await this.deps.store.records.get(executionId);
    return new SkillError(
      'APPROVAL_DECIDED',
      `The approval of "${executionId}" was decided already; nothing was changed`,
      {
        details: {
          status: execution?.status,
          approval: execution?.approval?.state,
          decided_by: execution?.approval?.decided_by,
        },
      },
    );
  }

  private async principal(headers: RequestHeaders): Promise<Principal> {
    const principal = principalOf(await this.deps.identities.of(headers));
    if (!principal) throw new SkillError('AUTH_REQUIRED', 'Approvals are for authenticated callers');
    return principal;
  }

  /** A pending approval `principal` may decide: 404 for one they may not (not theirs to see). */
  private async decidable(executionId: string, principal: Principal): Promise<Execution> {
    const execution = await this.pending(executionId);
    if (!mayDecide(execution, principal)) throw notFound(executionId);
    return execution;
  }

  /** An execution that asked for an approval (404 otherwise), still pending (409 otherwise). */
  private async pending(executionId: string): Promise<Execution> {
    const execution = await this.deps.store.records.get(executionId);
    if (!execution?.approval) throw notFound(executionId);
    if (execution.status !== 'awaiting_approval') throw await this.decided(executionId);
    return execution;
  }

  private async view(execution: Execution): Promise<ApprovalView> {
    const { store, registry, baseUrl } = this.deps;
    const [inputs, versions] = await Promise.all([
      store.records.inputsOf(execution.execution_id),
      registry.versions(execution.skill_id),
    ]);
    const entry = versions.find((version) => version.version === execution.skill_version);
    const description =
      entry?.source === 'hosted' ? entry.definition.description : (entry?.descriptor.description ?? '');
    const base = `${baseUrl}/approvals/${execution.execution_id}`;
    const approval = execution.approval ?? { state: 'pending' as const, deadline: '' };
    return {
      execution_id: execution.execution_id,
      skill_id: execution.skill_id,
      skill_version: execution.skill_version,
      description,
      inputs: inputs ?? {},
      approval,
      created_at: execution.timestamps.created_at,
      caller: execution.caller,
      urls: { approve: `${base}/approve`, reject: `${base}/reject`, link: `${base}/link` },
    };
  }
}

function mayDecide(execution: Execution, principal: Principal): boolean {
  return isAdmin(principal) || execution.approval?.approvers?.includes(principal.callerId) === true;
}

function notFound(executionId: string): SkillError {
  return new SkillError('EXECUTION_NOT_FOUND', `No approval "${executionId}" for this caller`);
}

function afterOf(cursor: string): { score: number; id: string } {
  return decodeCursor(cursor, ({ score, id }) =>
    typeof score === 'number' && typeof id === 'string' ? { score, id } : undefined,
  );
}
