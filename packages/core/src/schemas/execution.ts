import { type Static, Type } from '@sinclair/typebox';
import { ApprovalState } from './approval';
import { ErrorBody } from './error-body';
import { ExecutionMetadata, ExecutionTags } from './execution-tags';
import { Priority } from './invocation-request';
import { StringEnum } from './json-schema';
import { WebhookId, WebhookSecret } from './webhook';

/** Every status an execution can be in, in the order of its life. */
export const EXECUTION_STATUSES = [
  'awaiting_approval',
  'accepted',
  'running',
  'completed',
  'failed',
  'timeout',
  'canceled',
] as const;

/**
 * Spec 001's statuses, and ours: `canceled` (ended by a cancel request, never by the skill) and
 * `awaiting_approval` (before `accepted`: its skill's approval policy holds it until an approver
 * decides; approved it goes on `accepted`, rejected or timed out it ends `failed` without running).
 */
export const ExecutionStatus = StringEnum(EXECUTION_STATUSES);
export type ExecutionStatus = Static<typeof ExecutionStatus>;
export type TerminalStatus = Extract<ExecutionStatus, 'completed' | 'failed' | 'timeout' | 'canceled'>;

export const TERMINAL_STATUSES: readonly TerminalStatus[] = ['completed', 'failed', 'timeout', 'canceled'];
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

/** Whether an execution in this status has ended: nothing changes it any more. */
export function isTerminalStatus(status: string): status is TerminalStatus {
  return TERMINAL.has(status);
}

export const Timestamps = Type.Object({
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  scheduled_for: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Ours: when a delayed execution (context.delay_ms or run_at) is due to start; it waits `accepted` until then.',
    }),
  ),
  started_at: Type.Optional(Type.String({ format: 'date-time' })),
  completed_at: Type.Optional(Type.String({ format: 'date-time' })),
});

/** The composite execution a step belongs to, and which of its steps it is. */
export const ParentLink = Type.Object(
  { execution_id: Type.String({ format: 'uuid' }), step: Type.String() },
  { additionalProperties: false },
);
export type ParentLink = Static<typeof ParentLink>;

/** One step of a composite execution: its own execution, or `skipped` when its condition was false. */
export const StepSummary = Type.Object({
  step: Type.String(),
  skill_id: Type.String(),
  skill_version: Type.Optional(Type.String()),
  execution_id: Type.Optional(Type.String()),
  status: Type.Union([ExecutionStatus, Type.Literal('skipped')]),
  /**
   * The composite's attempt that ran it (a retried composite runs its steps again); 0 for a step
   * reused from the execution this one forked from (`forked_from`): its execution is that one's.
   */
  attempt: Type.Integer({ minimum: 0 }),
});
export type StepSummary = Static<typeof StepSummary>;

/** Ours: the execution a rerun from a step forked from, and that step (POST replay's `from_step`). */
export const ForkPoint = Type.Object(
  { execution_id: Type.String(), step: Type.String() },
  { additionalProperties: false },
);
export type ForkPoint = Static<typeof ForkPoint>;

/** Ours: a `task` execution's state while it waits for someone to do it. */
export const TaskState = Type.Object({
  state: StringEnum(['open', 'claimed']),
  claimed_by: Type.Optional(Type.String()),
  claimed_at: Type.Optional(Type.String({ format: 'date-time' })),
  /** When it times out unless someone completes it. */
  deadline: Type.String({ format: 'date-time' }),
});
export type TaskState = Static<typeof TaskState>;

/** LLM tokens spent by an execution (a composite's include its steps'). */
export const Usage = Type.Object({
  prompt_tokens: Type.Integer({ minimum: 0 }),
  completion_tokens: Type.Integer({ minimum: 0 }),
  total_tokens: Type.Integer({ minimum: 0 }),
  /** Answers received from LLM providers (a repair round is one more). */
  requests: Type.Integer({ minimum: 0 }),
  models: Type.Array(Type.String()),
  cost_usd: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        "Ours: what it cost in US dollars at the workers' price table (a composite's includes its steps'); absent when nothing it ran has a price.",
    }),
  ),
});
export type Usage = Static<typeof Usage>;

/** Ours: an attempt that failed and was retried, as its error envelope, when and where it failed. */
export const AttemptError = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  error: ErrorBody,
  failed_at: Type.String({ format: 'date-time' }),
  worker_id: Type.String({ description: 'The worker that ran the attempt (its WORKER_ID).' }),
});
export type AttemptError = Static<typeof AttemptError>;

/** What GET status and GET result answer, spec 001 section 6.4. */
export const Execution = Type.Object({
  execution_id: Type.String(),
  status: ExecutionStatus,
  skill_id: Type.String(),
  skill_version: Type.String({ description: 'The version that runs (or ran) this execution.' }),
  requested_version: Type.Optional(
    Type.String({ description: 'The version range the caller asked for, if any.' }),
  ),
  output: Type.Optional(Type.Unknown()),
  error: Type.Optional(ErrorBody),
  attempt_errors: Type.Optional(
    Type.Array(AttemptError, {
      description:
        "Ours: the errors of the attempts that failed and were retried, oldest first (the last attempt's is `error`); absent when none was.",
    }),
  ),
  attempts: Type.Integer({ minimum: 0 }),
  max_attempts: Type.Integer({ minimum: 1 }),
  progress: Type.Optional(Type.Number()),
  worker_id: Type.Optional(
    Type.String({
      description:
        'The worker process running the latest attempt, or that ran the last one (its WORKER_ID): our extension.',
    }),
  ),
  usage: Type.Optional(Usage),
  parent: Type.Optional(ParentLink),
  steps: Type.Optional(Type.Array(StepSummary)),
  /** Ours: while a task waits for someone (mode "task"). */
  task: Type.Optional(TaskState),
  /** Ours: the approval its skill's policy asked for: pending, or who decided it and when. */
  approval: Type.Optional(ApprovalState),
  replay_of: Type.Optional(
    Type.String({
      description: 'Ours: the execution this one replays (POST replay), with its inputs or edited ones.',
    }),
  ),
  forked_from: Type.Optional({
    ...ForkPoint,
    description:
      'Ours: a rerun from a step (POST replay with `from_step`): the execution it forked from and the step it ran again from; the steps before it are reused (attempt 0).',
  }),
  waiting_for: Type.Optional(
    StringEnum(['concurrency'], {
      description:
        "Ours: while `accepted`, what it waits for besides a free worker: `concurrency`, the skill's concurrency limit (in all, or for its concurrency_key).",
    }),
  ),
  schedule_id: Type.Optional(
    Type.String({ description: 'Ours: the schedule this execution is a run of (POST /schedules).' }),
  ),
  batch_id: Type.Optional(
    Type.String({ description: 'Ours: the batch (POST /batches) this execution was started in.' }),
  ),
  tags: Type.Optional(ExecutionTags),
  metadata: Type.Optional(ExecutionMetadata),
  trace_id: Type.String(),
  priority: Priority,
  caller: Type.Object({ id: Type.String(), type: Type.String() }),
  timestamps: Timestamps,
});
export type Execution = Static<typeof Execution>;

/** The longest wait a client may ask of GET status or result; a gateway waits at most its MAX_WAIT_SECONDS. */
export const LONGEST_WAIT_SECONDS = 3600;

/** `?wait=N` of GET status and GET result: the same as the `Prefer: wait=N` header (RFC 7240). */
export const ExecutionReadQuery = Type.Object(
  {
    wait: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LONGEST_WAIT_SECONDS,
        description:
          'Seconds to wait for the execution to change (status) or end (result) before answering; the gateway caps it at its MAX_WAIT_SECONDS.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExecutionReadQuery = Static<typeof ExecutionReadQuery>;

/** The 202 answer to an invocation. */
export const InvocationAccepted = Type.Object({
  execution_id: Type.String(),
  status: Type.Literal('accepted'),
  skill_id: Type.String(),
  skill_version: Type.String(),
  requested_version: Type.Optional(Type.String()),
  replay_of: Type.Optional(Type.String({ description: 'Ours: the execution this one replays.' })),
  forked_from: Type.Optional({
    ...ForkPoint,
    description: 'Ours: of a rerun from a step, the execution it forked from and that step.',
  }),
  trace_id: Type.String(),
  timestamps: Timestamps,
  webhook: Type.Optional(
    Type.Object(
      { id: WebhookId, secret: WebhookSecret },
      {
        description:
          "Ours: the invocation's webhook, and the secret its deliveries are signed with (shown once).",
      },
    ),
  ),
});
export type InvocationAccepted = Static<typeof InvocationAccepted>;
