import type { AuditAction } from '@skillrun/core';

/** An administrative act: the endpoint it is asked at, and what of its body says what was asked. */
export interface AuditedAct {
  action: AuditAction;
  method: 'post' | 'put' | 'patch' | 'delete';
  /** As the OpenAPI document names it (`{skill_id}`): its parameters are the record's `target`. */
  path: string;
  /**
   * The body's fields kept in the record's `details`: only those that say what was asked, never
   * one that may hold a secret (a credential, a schedule's or a replay's inputs).
   */
  details?: readonly string[];
}

const FILTER = [
  'skill_id',
  'version',
  'status',
  'caller_id',
  'since',
  'until',
  'schedule_id',
  'batch_id',
  'tag',
  'limit',
];

/**
 * Every administrative act the audit log records, in one place so that each is recorded once by
 * one middleware (audit-recorder.ts) whatever its route does; `openapi-document.test.ts` checks that
 * each is an operation of the OpenAPI document.
 */
export const AUDITED_ACTS: readonly AuditedAct[] = [
  {
    action: 'key.create',
    method: 'post',
    path: '/admin/keys',
    details: ['caller_id', 'scopes', 'skills', 'name'],
  },
  { action: 'key.revoke', method: 'delete', path: '/admin/keys/{key_id}' },
  { action: 'skill.publish', method: 'post', path: '/skills', details: ['id', 'version'] },
  {
    action: 'skill.deprecate',
    method: 'put',
    path: '/skills/{skill_id}/versions/{version}/deprecation',
    details: ['message'],
  },
  {
    action: 'skill.undeprecate',
    method: 'delete',
    path: '/skills/{skill_id}/versions/{version}/deprecation',
  },
  {
    action: 'skill.dormancy.forget',
    method: 'delete',
    path: '/skills/{skill_id}/versions/{version}/dormancy',
  },
  { action: 'skill.credentials.set', method: 'put', path: '/skills/{skill_id}/credentials' },
  { action: 'skill.credentials.delete', method: 'delete', path: '/skills/{skill_id}/credentials' },
  { action: 'skill.pause', method: 'post', path: '/skills/{skill_id}/pause' },
  { action: 'skill.resume', method: 'post', path: '/skills/{skill_id}/resume' },
  {
    action: 'skill.rollout.set',
    method: 'post',
    path: '/skills/{skill_id}/rollout',
    details: ['version', 'percent'],
  },
  { action: 'skill.rollout.rollback', method: 'delete', path: '/skills/{skill_id}/rollout' },
  { action: 'skill.pin.set', method: 'put', path: '/skills/{skill_id}/pins/{caller}', details: ['version'] },
  { action: 'skill.pin.delete', method: 'delete', path: '/skills/{skill_id}/pins/{caller}' },
  { action: 'skill.approval.set', method: 'put', path: '/skills/{skill_id}/approval', details: ['approval'] },
  // A one-time link's decisions are not here: its path holds the link's token, a credential. Every
  // decision is on the execution's record too (who, how, when), whichever way it came.
  {
    action: 'approval.approve',
    method: 'post',
    path: '/approvals/{execution_id}/approve',
    details: ['reason'],
  },
  {
    action: 'approval.reject',
    method: 'post',
    path: '/approvals/{execution_id}/reject',
    details: ['reason'],
  },
  {
    action: 'execution.replay',
    method: 'post',
    path: '/skills/{skill_id}/replay/{execution_id}',
    details: ['version', 'from_step'],
  },
  {
    action: 'executions.replay',
    method: 'post',
    path: '/executions/replay',
    details: [...FILTER, 'from_step'],
  },
  { action: 'executions.cancel', method: 'post', path: '/executions/cancel', details: FILTER },
  { action: 'batch.cancel', method: 'post', path: '/batches/{batch_id}/cancel' },
  {
    action: 'schedule.create',
    method: 'post',
    path: '/schedules',
    details: ['skill_id', 'version', 'cron', 'every_ms', 'timezone', 'overlap'],
  },
  {
    action: 'schedule.update',
    method: 'patch',
    path: '/schedules/{schedule_id}',
    details: ['paused', 'version', 'cron', 'every_ms', 'timezone', 'overlap'],
  },
  { action: 'schedule.delete', method: 'delete', path: '/schedules/{schedule_id}' },
  {
    action: 'schedule.backfill',
    method: 'post',
    path: '/schedules/{schedule_id}/backfill',
    details: ['from', 'to'],
  },
];

/** An act's path as Express routes it (`:skill_id`). */
export function routeOf(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
