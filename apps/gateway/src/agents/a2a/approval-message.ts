import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Verdict } from '../../approvals/approval-desk';

/** What a message to a task awaiting its approval decides: approve or reject, and why. */
export interface ApprovalMessage {
  verdict: Verdict;
  reason?: string;
}

const VERDICTS: Record<string, Verdict> = { approve: 'approved', reject: 'rejected' };

/**
 * The decision a message to an existing task carries in its data part, `{"decision": "approve" |
 * "reject", "reason"?: string}`: how an approver answers a task in `input-required`. Anything else
 * is refused as malformed, naming what it takes.
 */
export function approvalMessageOf(message: Message): ApprovalMessage {
  const data = message.parts.find((part) => part.content?.$case === 'data')?.content?.value as unknown;
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const verdict = typeof fields.decision === 'string' ? VERDICTS[fields.decision] : undefined;
  if (!verdict) {
    throw new RequestMalformedError(
      'A message to a task awaiting its approval decides it: a data part {"decision": "approve" | "reject", "reason"?: string}',
    );
  }
  const { reason } = fields;
  return { verdict, ...(typeof reason === 'string' && reason !== '' ? { reason } : {}) };
}
