import type { CallOptions } from './client-options.js';
import type {
  ApprovalLink,
  ApprovalPage,
  ApprovalPolicy,
  ApprovalView,
  SkillApprovalState,
  SkillrunExecution,
} from './protocol.js';
import type { ServiceRequests } from './service-requests.js';
import { unexpectedResponse } from './skillrun-error.js';
import { urlWithQuery } from './url-template.js';

/** approve or reject. */
export type ApprovalVerdict = 'approve' | 'reject';

/**
 * skillrun's approvals, on the client's service (`baseUrl`): the pending approvals the caller may
 * decide (GET /approvals), deciding one (once: a second decision is APPROVAL_DECIDED), its one-time
 * links, and an operator's approval policy for a skill (GET and PUT /skills/{id}/approval).
 */
export class ApprovalCalls {
  constructor(private readonly service: ServiceRequests) {}

  async list(
    query: { skillId?: string; cursor?: string; limit?: number } = {},
    options: CallOptions = {},
  ): Promise<ApprovalPage> {
    const url = urlWithQuery(this.service.baseUrl(), '/approvals', {
      ...(query.skillId === undefined ? {} : { skill_id: query.skillId }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      ...(query.limit === undefined ? {} : { limit: String(query.limit) }),
    });
    const answer = await this.service.get<ApprovalPage>(url, options.signal);
    if (!Array.isArray(answer?.approvals)) throw unexpectedResponse(url, answer);
    return { approvals: answer.approvals, next_cursor: answer.next_cursor ?? null };
  }

  async get(executionId: string, options: CallOptions = {}): Promise<ApprovalView> {
    const url = this.url(`/approvals/${encodeURIComponent(executionId)}`);
    const answer = await this.service.get<ApprovalView>(url, options.signal);
    if (typeof answer?.execution_id !== 'string') throw unexpectedResponse(url, answer);
    return answer;
  }

  /**
   * POST approve or reject, with an optional reason: the execution as it is after. A retry after a
   * lost answer is refused APPROVAL_DECIDED (details say what was decided): one decision is made.
   */
  async decide(
    executionId: string,
    verdict: ApprovalVerdict,
    reason?: string,
    options: CallOptions = {},
  ): Promise<SkillrunExecution> {
    const url = this.url(`/approvals/${encodeURIComponent(executionId)}/${verdict}`);
    const body = reason === undefined ? {} : { reason };
    const answer = await this.service.send<SkillrunExecution>('POST', url, body, options.signal);
    if (typeof answer?.status !== 'string') throw unexpectedResponse(url, answer);
    return answer;
  }

  async link(executionId: string, options: CallOptions = {}): Promise<ApprovalLink> {
    const url = this.url(`/approvals/${encodeURIComponent(executionId)}/link`);
    const answer = await this.service.send<ApprovalLink>('POST', url, undefined, options.signal);
    if (typeof answer?.url !== 'string') throw unexpectedResponse(url, answer);
    return answer;
  }

  async policy(skillId: string, options: CallOptions = {}): Promise<SkillApprovalState> {
    const url = this.url(`/skills/${encodeURIComponent(skillId)}/approval`);
    const answer = await this.service.get<SkillApprovalState>(url, options.signal);
    if (typeof answer?.skill_id !== 'string') throw unexpectedResponse(url, answer);
    return answer;
  }

  /** PUT /skills/{id}/approval: the operator's policy (null removes it). */
  async setPolicy(
    skillId: string,
    approval: ApprovalPolicy | null,
    options: CallOptions = {},
  ): Promise<SkillApprovalState> {
    const url = this.url(`/skills/${encodeURIComponent(skillId)}/approval`);
    const answer = await this.service.send<SkillApprovalState>('PUT', url, { approval }, options.signal);
    if (typeof answer?.skill_id !== 'string') throw unexpectedResponse(url, answer);
    return answer;
  }

  private url(path: string): string {
    return urlWithQuery(this.service.baseUrl(), path);
  }
}
