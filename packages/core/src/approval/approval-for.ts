import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../schemas/approval';
import type { PendingApproval } from '../store/execution/approval-fields';
import type { RegistryEntry, RegistryVersion } from '../store/registry-entry';
import { ApprovalRuleError, needsApproval, parseApprovalRule } from './approval-rule';

/**
 * The approval a new execution of `entry` must wait for, decided at launch on its validated inputs:
 * the operator's policy for the skill (PUT /skills/{id}/approval), else the version's own
 * (skill.json `approval`); undefined when neither asks. A rule that does not parse (published
 * before rules were checked) asks for an approval: it fails closed.
 */
export function approvalFor(
  entry: RegistryEntry & Pick<RegistryVersion, 'operatorApproval'>,
  inputs: unknown,
  now: number,
): PendingApproval | undefined {
  const policy =
    entry.operatorApproval?.approval ?? (entry.source === 'hosted' ? entry.definition.approval : undefined);
  if (!policy) return undefined;
  if (!ruleAsks(policy.when, inputs)) return undefined;
  return {
    deadline: now + (policy.timeout_ms ?? DEFAULT_APPROVAL_TIMEOUT_MS),
    when: policy.when,
    ...(policy.approvers ? { approvers: policy.approvers } : {}),
  };
}

function ruleAsks(when: string, inputs: unknown): boolean {
  try {
    return needsApproval(parseApprovalRule(when), inputs);
  } catch (error) {
    if (error instanceof ApprovalRuleError) return true;
    throw error;
  }
}
