import type { Execution, Principal } from '@skillrun/core';
import { assertRole } from './assert-role';
import { seesPayloads } from './role-of';

/**
 * A viewer sees every execution without its inputs and outputs. Every read of an execution passes
 * here: one record (status, result, its event stream, MCP's and A2A's tasks: readable-execution.ts),
 * the caller streams, the listings (which show no output to anyone); the streamed chunks and the
 * inputs are refused (assertSeesPayloads).
 */
export function asSeenBy(principal: Principal | undefined, execution: Execution): Execution {
  if (seesPayloads(principal)) return execution;
  const { output: _output, ...shown } = execution;
  return shown;
}

/** 403 naming the operator role, for a viewer reading inputs or streamed output as such. */
export function assertSeesPayloads(principal: Principal | undefined, what: string): void {
  if (principal) assertRole(principal, 'operator', what, 'callers too');
}
