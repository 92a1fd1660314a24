import type { ApprovalState } from '../../schemas/approval';
import { isoOf } from './epoch-iso';

/** What a record awaiting its approval keeps of it: until when, who may decide, and the rule that asked. */
export interface PendingApproval {
  /** Epoch ms: it fails with APPROVAL_TIMEOUT unless decided by then. */
  deadline: number;
  approvers?: string[];
  when: string;
}

/** The fields of a new record awaiting its approval. */
export function approvalFields({ deadline, approvers, when }: PendingApproval): Record<string, string> {
  return {
    approval_deadline: String(deadline),
    approval_when: when,
    ...(approvers ? { approval_approvers: JSON.stringify(approvers) } : {}),
  };
}

/** The fields a decision on an approval writes (ApprovalDecisions), with the status it moves to. */
export interface ApprovalDecisionFields {
  state: 'approved' | 'rejected' | 'timed_out';
  by: string;
  at: number;
  via?: 'api' | 'link' | 'mcp' | 'a2a';
  reason?: string;
}

export function decisionFields(decision: ApprovalDecisionFields): Record<string, string> {
  return {
    approval_state: decision.state,
    approval_by: decision.by,
    approval_at: String(decision.at),
    ...(decision.via === undefined ? {} : { approval_via: decision.via }),
    ...(decision.reason ? { approval_reason: decision.reason } : {}),
  };
}

/** An execution's approval: pending while it awaits one, then who decided it and when. */
export function approvalOf(fields: Record<string, string>): { approval?: ApprovalState } {
  if (fields.approval_deadline === undefined) return {};
  // Still `pending` once ended: canceled while it waited, never decided.
  const state = (fields.approval_state ?? 'pending') as ApprovalState['state'];
  const decidedAt = isoOf(fields.approval_at);
  return {
    approval: {
      state,
      ...(fields.approval_when === undefined ? {} : { when: fields.approval_when }),
      ...(fields.approval_approvers === undefined
        ? {}
        : { approvers: JSON.parse(fields.approval_approvers) as string[] }),
      deadline: isoOf(fields.approval_deadline) ?? '',
      ...(fields.approval_by === undefined ? {} : { decided_by: fields.approval_by }),
      ...(decidedAt === undefined ? {} : { decided_at: decidedAt }),
      ...(fields.approval_via === undefined
        ? {}
        : { via: fields.approval_via as NonNullable<ApprovalState['via']> }),
      ...(fields.approval_reason === undefined ? {} : { reason: fields.approval_reason }),
    },
  };
}
