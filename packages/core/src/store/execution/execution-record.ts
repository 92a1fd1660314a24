import { dueAt, type ScheduledStart } from '../../queue/scheduled-start';
import type { ErrorBody } from '../../schemas/error-body';
import {
  type AttemptError,
  type Execution,
  type ExecutionStatus,
  type ForkPoint,
  type StepSummary,
  type TaskState,
  TERMINAL_STATUSES,
  type TerminalStatus,
} from '../../schemas/execution';
import type { JobPayload } from '../../schemas/job-payload';
import type { WebhookMode } from '../../schemas/webhook';
import { approvalFields, approvalOf, type PendingApproval } from './approval-fields';
import { isoOf } from './epoch-iso';
import { usageOf } from './usage-fields';

/**
 * A step as the parent's record keeps it: which execution ran it, in which of the parent's
 * attempts (0: reused from the execution a rerun forked from, part of every attempt). Its status is
 * the child's own, read when the parent is read.
 */
export type StepEntry =
  | { step: string; skill_id: string; skill_version: string; execution_id: string; attempt: number }
  | { step: string; skill_id: string; status: 'skipped'; attempt: number };

/**
 * A retried attempt's error is a field of its own, `attempt_error:<attempt>`, written with the
 * retry (ExecutionTransitions.retrying): the record of an execution that never retried holds none.
 */
const ATTEMPT_ERROR_FIELD = /^attempt_error:(\d+)$/;

/** What an attempt_error field holds: the envelope, when (epoch ms) and on which worker it failed. */
interface StoredAttemptError {
  error: ErrorBody;
  at: number;
  worker: string;
}

export function attemptErrorField(
  attempt: number,
  error: ErrorBody,
  at: number,
  worker: string,
): [string, string] {
  const stored: StoredAttemptError = { error, at, worker };
  return [`attempt_error:${attempt}`, JSON.stringify(stored)];
}

function attemptErrorsOf(fields: Record<string, string>): { attempt_errors?: AttemptError[] } {
  const errors: AttemptError[] = [];
  // A loop over the keys, not Object.entries: every read of a record (and every launch) passes here.
  for (const field in fields) {
    const match = field.startsWith('attempt_error:') ? ATTEMPT_ERROR_FIELD.exec(field) : null;
    if (!match) continue;
    const stored = JSON.parse(fields[field] as string) as StoredAttemptError;
    errors.push({
      attempt: Number(match[1]),
      error: stored.error,
      failed_at: new Date(stored.at).toISOString(),
      worker_id: stored.worker,
    });
  }
  return errors.length === 0 ? {} : { attempt_errors: errors.sort((a, b) => a.attempt - b.attempt) };
}

export function stepEntriesOf(fields: Record<string, string>): StepEntry[] {
  return fields.steps === undefined ? [] : (JSON.parse(fields.steps) as StepEntry[]);
}

export function stepSummary(entry: StepEntry, childStatus: string | null | undefined): StepSummary {
  if ('status' in entry) {
    return { step: entry.step, skill_id: entry.skill_id, status: 'skipped', attempt: entry.attempt };
  }
  return {
    step: entry.step,
    skill_id: entry.skill_id,
    skill_version: entry.skill_version,
    execution_id: entry.execution_id,
    // A step whose record expired before its parent's is reported as it last could be: accepted.
    status: (childStatus ?? 'accepted') as ExecutionStatus,
    attempt: entry.attempt,
  };
}

/** What a new execution's record holds besides its job payload. */
export interface RecordExtras {
  max_attempts: number;
  /** The version range the caller asked for, if any. */
  requested_version?: string;
  /** The concurrency quotas (in-flight sets) it holds a slot in until it ends. */
  slots?: string[];
  /** The execution this one replays. */
  replay_of?: string;
  /** Of a rerun from a step: the execution and step it forked from. */
  forked_from?: ForkPoint;
  /** The steps it starts with: those a rerun from a step reuses (attempt 0). */
  steps?: StepEntry[];
  /** The schedule it is a run of. */
  schedule_id?: string;
  /** Of a skill registered from elsewhere: its job is on the remote queue. */
  remote?: boolean;
  /** When a delayed execution starts (its record says when it is due). */
  start?: ScheduledStart;
  /** Webhooks hear of its end, or of every change (a standing one of its caller's, or its own). */
  hook?: WebhookMode;
  /** The webhook its invocation named for it. */
  webhook_id?: string;
  /**
   * The watcher (a gateway's, RedisKeys.watcherInbox) its changes are announced to from its creation
   * on (see ExecutionRecords.read's `watcher`): the request that invokes it waits for its end.
   */
  watched?: string;
  /** The batch it was started in (POST /batches). */
  batch_id?: string;
  /**
   * Its skill's concurrency limits apply to it: until a worker admits it to its slots (the flow
   * gate), a job taken is not running, only about to be parked or run.
   */
  unadmitted?: boolean;
  /** Its skill's approval policy holds it (`awaiting_approval`) until an approver decides. */
  approval?: PendingApproval;
}

/**
 * The fields of a new record, written from the job payload as it is (the execution id is the key's,
 * times are epoch ms). Small values in few fields keep the hash in Redis' compact encoding.
 */
export function recordFields(payload: JobPayload, extras: RecordExtras, now: number): Record<string, string> {
  return {
    status: extras.approval ? 'awaiting_approval' : 'accepted',
    skill_id: payload.skill_id,
    skill_version: payload.skill_version,
    ...(extras.requested_version === undefined ? {} : { requested_version: extras.requested_version }),
    max_attempts: String(extras.max_attempts),
    trace_id: payload.trace_id,
    priority: payload.priority,
    caller_id: payload.caller.id,
    caller_type: payload.caller.type,
    created_at: String(now),
    ...(extras.start === undefined ? {} : { scheduled_for: String(dueAt(extras.start, now)) }),
    // Kept for a replay: the job that carries them is gone once the execution ends.
    inputs: JSON.stringify(payload.inputs),
    ...(extras.replay_of === undefined ? {} : { replay_of: extras.replay_of }),
    ...(extras.forked_from === undefined ? {} : { forked_from: JSON.stringify(extras.forked_from) }),
    ...(extras.steps?.length ? { steps: JSON.stringify(extras.steps) } : {}),
    ...(extras.schedule_id === undefined ? {} : { schedule_id: extras.schedule_id }),
    ...(extras.remote ? { remote: '1' } : {}),
    ...(payload.parent
      ? { parent_execution_id: payload.parent.execution_id, parent_step: payload.parent.step }
      : {}),
    ...(payload.owner === undefined ? {} : { owner_id: payload.owner }),
    ...(payload.queue_timeout_ms === undefined ? {} : { queue_timeout_ms: String(payload.queue_timeout_ms) }),
    // Kept for a replay, which is gated under the same key.
    ...(payload.concurrency_key === undefined ? {} : { concurrency_key: payload.concurrency_key }),
    ...(extras.slots?.length ? { slots: JSON.stringify(extras.slots) } : {}),
    ...(extras.hook === undefined ? {} : { hook: extras.hook }),
    ...(extras.webhook_id === undefined ? {} : { webhook_id: extras.webhook_id }),
    ...(extras.watched === undefined ? {} : { watched: extras.watched }),
    ...(extras.batch_id === undefined ? {} : { batch_id: extras.batch_id }),
    ...(extras.unadmitted ? { unadmitted: '1' } : {}),
    ...(extras.approval ? approvalFields(extras.approval) : {}),
    ...(payload.tags?.length ? { tags: JSON.stringify(payload.tags) } : {}),
    ...(payload.metadata === undefined ? {} : { metadata: JSON.stringify(payload.metadata) }),
  };
}

/**
 * While an execution is not final, BullMQ's copy of its job says whether an attempt has started
 * (and how many): the worker does not write its record when an attempt starts.
 */
export interface LiveJob {
  /** Epoch ms at which the latest attempt started. */
  processedOn?: number;
  /** Attempts started so far. */
  attemptsStarted?: number;
  /** The worker that took the latest attempt (BullMQ's processedBy). */
  worker?: string;
}

/** The worker of the latest attempt: the live job's while it runs, then the one the end recorded. */
function workerOf(fields: Record<string, string>, live: LiveJob): { worker_id?: string } {
  const worker = live.worker ?? fields.worker_id;
  return worker === undefined ? {} : { worker_id: worker };
}

/** When the execution was due to start (epoch ms): its scheduled time if delayed, else its acceptance. */
export function dueAtOf(fields: Record<string, string>): number {
  return Number(fields.scheduled_for ?? fields.created_at);
}

/** The hash of an execution as the protocol shows it; null when there is no such record. */
export function toExecution(
  executionId: string,
  fields: Record<string, string>,
  live: LiveJob = {},
  steps?: StepSummary[],
): Execution | null {
  if (!fields.status) return null;
  const started = live.processedOn !== undefined && fields.status === 'accepted';
  const status = (started ? 'running' : fields.status) as ExecutionStatus;
  const usage = usageOf(fields);
  const scheduledFor = isoOf(fields.scheduled_for);
  const startedAt = isoOf(fields.started_at) ?? isoOf(live.processedOn);
  const completedAt = isoOf(fields.completed_at);
  const createdAt = isoOf(fields.created_at) ?? '';
  const updatedAt =
    completedAt ?? isoOf(fields.updated_at) ?? (started ? isoOf(live.processedOn) : undefined) ?? createdAt;
  return {
    execution_id: executionId,
    status,
    skill_id: fields.skill_id ?? '',
    skill_version: fields.skill_version ?? '',
    ...(fields.requested_version === undefined ? {} : { requested_version: fields.requested_version }),
    ...(fields.output === undefined ? {} : { output: JSON.parse(fields.output) }),
    ...(fields.error === undefined ? {} : { error: JSON.parse(fields.error) as ErrorBody }),
    ...attemptErrorsOf(fields),
    attempts: Math.max(Number(fields.attempts ?? 0), live.attemptsStarted ?? 0),
    max_attempts: Number(fields.max_attempts ?? 1),
    ...(fields.progress === undefined ? {} : { progress: Number(fields.progress) }),
    ...workerOf(fields, live),
    ...(usage ? { usage } : {}),
    ...(fields.parent_execution_id === undefined
      ? {}
      : { parent: { execution_id: fields.parent_execution_id, step: fields.parent_step ?? '' } }),
    ...(steps ? { steps } : {}),
    ...taskOf(fields, status),
    ...approvalOf(fields),
    ...(fields.replay_of === undefined ? {} : { replay_of: fields.replay_of }),
    ...(fields.forked_from === undefined ? {} : { forked_from: JSON.parse(fields.forked_from) as ForkPoint }),
    ...(fields.waiting_for === undefined || status !== 'accepted'
      ? {}
      : { waiting_for: fields.waiting_for as 'concurrency' }),
    ...(fields.schedule_id === undefined ? {} : { schedule_id: fields.schedule_id }),
    ...(fields.batch_id === undefined ? {} : { batch_id: fields.batch_id }),
    ...(fields.tags === undefined ? {} : { tags: JSON.parse(fields.tags) as string[] }),
    ...(fields.metadata === undefined
      ? {}
      : { metadata: JSON.parse(fields.metadata) as Record<string, unknown> }),
    trace_id: fields.trace_id ?? '',
    priority: (fields.priority ?? 'normal') as Execution['priority'],
    caller: { id: fields.caller_id ?? '', type: fields.caller_type ?? '' },
    timestamps: {
      created_at: createdAt,
      updated_at: updatedAt,
      ...(scheduledFor === undefined ? {} : { scheduled_for: scheduledFor }),
      ...(startedAt === undefined ? {} : { started_at: startedAt }),
      ...(completedAt === undefined ? {} : { completed_at: completedAt }),
    },
  };
}

/** A task's state, while it waits (the record keeps the fields after, without meaning). */
function taskOf(fields: Record<string, string>, status: ExecutionStatus): { task?: TaskState } {
  if (fields.task_deadline === undefined || TERMINAL_STATUSES.includes(status as TerminalStatus)) return {};
  const claimedAt = isoOf(fields.task_claimed_at);
  return {
    task: {
      state: fields.task_claimed_by === undefined ? 'open' : 'claimed',
      ...(fields.task_claimed_by === undefined ? {} : { claimed_by: fields.task_claimed_by }),
      ...(claimedAt === undefined ? {} : { claimed_at: claimedAt }),
      deadline: isoOf(fields.task_deadline) ?? '',
    },
  };
}
