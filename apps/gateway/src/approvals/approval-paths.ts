import { ApprovalListQuery } from '@skillrun/core';
import { errors, executionId, json, ok, queryParameters } from '../http/openapi-parts';

const tags = ['approvals'];
const AUTH =
  "Needs credentials of an approver the execution's approval policy names (`approvers`) or an admin; an approval the caller may not decide is 404.";
const ONCE =
  'An approval is decided exactly once, atomically: of two decisions at once (two approvers, or one and the deadline) one wins and the other is 409 APPROVAL_DECIDED.';
const token = { name: 'token', in: 'path', required: true, schema: { type: 'string' } };
const decision = { required: false, content: json('ApprovalDecision') };

/** Ours: the endpoints of approvals, under /approvals. */
export const approvalPaths = {
  '/approvals': {
    get: {
      operationId: 'listApprovals',
      summary: 'The pending approvals the caller may decide, oldest first (ours)',
      description: `Executions with status \`awaiting_approval\`, optionally of one skill. ${AUTH}`,
      tags,
      parameters: queryParameters(ApprovalListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'ApprovalListPage'),
        ...errors('400', '401', '503'),
      },
    },
  },
  '/approvals/{execution_id}': {
    get: {
      operationId: 'getApproval',
      summary: 'One pending approval, with the inputs to decide on (ours)',
      description: `409 APPROVAL_DECIDED once decided. ${AUTH}`,
      tags,
      parameters: [executionId],
      responses: { '200': ok('The approval.', 'ApprovalView'), ...errors('401', '404', '409', '503') },
    },
  },
  '/approvals/{execution_id}/approve': {
    post: {
      operationId: 'approveExecution',
      summary: 'Approve: the execution goes on (`accepted`) and runs (ours)',
      description: `Who approved, how and when is kept on the execution (\`approval\`). ${ONCE} ${AUTH}`,
      tags,
      parameters: [executionId],
      requestBody: decision,
      responses: {
        '200': ok('The execution, approved.', 'Execution'),
        ...errors('400', '401', '404', '409', '415', '503'),
      },
    },
  },
  '/approvals/{execution_id}/reject': {
    post: {
      operationId: 'rejectExecution',
      summary: 'Reject: the execution fails with APPROVAL_REJECTED and nothing runs (ours)',
      description: `The reason, if given, is in the error's message and in \`approval.reason\`. ${ONCE} ${AUTH}`,
      tags,
      parameters: [executionId],
      requestBody: decision,
      responses: {
        '200': ok('The execution, failed.', 'Execution'),
        ...errors('400', '401', '404', '409', '415', '503'),
      },
    },
  },
  '/approvals/{execution_id}/link': {
    post: {
      operationId: 'linkApproval',
      summary: 'A one-time link that approves or rejects without credentials (ours)',
      description: `A signed link (HS256, a key derived from TASK_LINK_SECRET) that expires after TASK_LINK_TTL_SECONDS and decides the approval once, on the caller's behalf (e.g. for a person reached by e-mail). ${AUTH}`,
      tags,
      parameters: [executionId],
      responses: { '201': ok('The link.', 'ApprovalLink'), ...errors('401', '404', '409', '503') },
    },
  },
  '/approvals/link/{token}': {
    get: {
      operationId: 'getApprovalByLink',
      summary: 'The approval a one-time link is for, without credentials (ours)',
      tags,
      parameters: [token],
      responses: { '200': ok('The approval.', 'ApprovalView'), ...errors('403', '404', '409', '503') },
    },
  },
  '/approvals/link/{token}/approve': {
    post: {
      operationId: 'approveByLink',
      summary: 'Approve by a one-time link, without credentials (ours)',
      description: `As POST approve by the caller who issued the link; the link works once. ${ONCE}`,
      tags,
      parameters: [token],
      requestBody: decision,
      responses: {
        '200': ok('The execution, approved.', 'Execution'),
        ...errors('400', '403', '404', '409', '415', '503'),
      },
    },
  },
  '/approvals/link/{token}/reject': {
    post: {
      operationId: 'rejectByLink',
      summary: 'Reject by a one-time link, without credentials (ours)',
      description: `As POST reject by the caller who issued the link; the link works once. ${ONCE}`,
      tags,
      parameters: [token],
      requestBody: decision,
      responses: {
        '200': ok('The execution, failed.', 'Execution'),
        ...errors('400', '403', '404', '409', '415', '503'),
      },
    },
  },
};
