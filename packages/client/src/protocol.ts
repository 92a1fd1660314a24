/**
 * The protocol's shapes as this client reads them (spec 000's Skill Descriptor, spec 001's
 * execution and error envelope). Declared here rather than imported from `@skillrun/core`, so that
 * the published package depends on nothing: `test/unit/client-protocol-types.test.ts` checks at
 * compile time that core's types, the service's source of truth, are assignable to these.
 * Only what a consumer reads is required; every provider may add fields.
 */

export type ExecutionStatus =
  | 'awaiting_approval'
  | 'accepted'
  | 'running'
  | 'completed'
  | 'failed'
  | 'timeout'
  | 'canceled';
export type TerminalStatus = 'completed' | 'failed' | 'timeout' | 'canceled';

/** Spec 001's error body (sections 6.5 and 6.6) and spec 002's error format. */
export interface ErrorBody {
  code: string;
  message: string;
  recoverable?: boolean;
  details?: unknown;
  suggested_action?: string;
  retry?: { suggested_delay_ms?: number; max_attempts?: number };
}

export interface AuthConfig {
  type: 'api_key' | 'oauth2' | 'custom' | 'none' | (string & {});
  description?: string;
  /** api_key: the header that carries the key (X-API-Key when absent). */
  header?: string;
  oauth2?: { authorization_url: string; token_url: string; scopes: Record<string, string> };
}

export interface InvocationEndpoint {
  url: string;
  method?: string;
  content_type?: string;
  /** A template with `{execution_id}`, or a base the id is appended to (spec 001 section 6.2). */
  status_url: string;
  result_url: string;
  /** skillrun's extension: POST here to cancel. */
  'x-cancel_url'?: string;
  /** skillrun's extension: the status as server-sent events. */
  'x-events_url'?: string;
  timeout_ms?: number;
  retry?: { max_attempts?: number; backoff_ms?: number };
}

export interface ParameterDefinition {
  name: string;
  type: string;
  description?: string;
  required: boolean;
  default?: unknown;
  schema?: Record<string, unknown>;
}

/** Spec 000's Skill Descriptor. */
export interface SkillDescriptor {
  protocol: { version: string; changelog_url?: string };
  id: string;
  name: string;
  version: string;
  capability_type: string;
  description: string;
  provider: { name: string; url?: string; contact?: string };
  endpoint: InvocationEndpoint;
  inputs: ParameterDefinition[];
  output: { content_type: string; schema: unknown; description?: string };
  auth: AuthConfig;
  access: string;
  tags?: string[];
  documentation_url?: string;
  created_at?: string;
  updated_at?: string;
  [extension: `x-${string}`]: unknown;
}

/** An execution as GET status and GET result answer it (spec 001 section 6.4). */
export interface Execution {
  execution_id: string;
  status: ExecutionStatus | (string & {});
  skill_id: string;
  skill_version?: string;
  output?: unknown;
  error?: ErrorBody;
  progress?: number;
  attempts?: number;
  max_attempts?: number;
  trace_id?: string;
  caller?: { id: string; type: string };
  timestamps?: {
    created_at?: string;
    updated_at?: string;
    /** skillrun's: when a delayed execution is due to start. */
    scheduled_for?: string;
    started_at?: string;
    completed_at?: string;
  };
  [field: string]: unknown;
}

/**
 * An execution as a skillrun service answers it: spec 001's, with the fields skillrun always sends
 * and its extensions (retried attempts' errors, usage, a composite's steps, a task's state). What
 * the console reads; `test/unit/client-protocol-types.test.ts` checks that core's type, the
 * service's source of truth, is assignable to it.
 */
export interface SkillrunExecution extends Execution {
  status: ExecutionStatus;
  skill_version: string;
  requested_version?: string;
  /** The errors of the attempts that were retried, oldest first (the last attempt's is `error`). */
  attempt_errors?: { attempt: number; error: ErrorBody; failed_at: string; worker_id: string }[];
  attempts: number;
  max_attempts: number;
  worker_id?: string;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    requests: number;
    models: string[];
    /** skillrun: what it cost in US dollars at the workers' price table (a composite's includes its steps'). */
    cost_usd?: number;
  };
  parent?: { execution_id: string; step: string };
  steps?: {
    step: string;
    skill_id: string;
    skill_version?: string;
    execution_id?: string;
    status: string;
    /** The composite's attempt that ran it; 0 for a step reused from the execution it forked from. */
    attempt: number;
  }[];
  task?: { state: 'open' | 'claimed'; claimed_by?: string; claimed_at?: string; deadline: string };
  /** While `awaiting_approval`, and once decided: who decided it, how and when. */
  approval?: ApprovalState;
  replay_of?: string;
  /** Of a rerun from a step (`ReplayRequest.from_step`): the execution it forked from and that step. */
  forked_from?: { execution_id: string; step: string };
  /** While `accepted`: `concurrency`, the skill is at its concurrency limit (in all, or for its key). */
  waiting_for?: 'concurrency';
  /** The schedule this execution is a run of. */
  schedule_id?: string;
  /** The batch (POST /batches) it was started in. */
  batch_id?: string;
  /** Its context.tags (a composite's step: its composite's). */
  tags?: string[];
  /** Its context.metadata (a composite's step: its composite's). */
  metadata?: Record<string, unknown>;
  trace_id: string;
  priority: string;
  caller: { id: string; type: string };
  timestamps: {
    created_at: string;
    updated_at: string;
    /** When a delayed execution (context.delay_ms or run_at) is due to start. */
    scheduled_for?: string;
    started_at?: string;
    completed_at?: string;
  };
}

/** The 202 answer to an invocation. */
export interface InvocationAccepted {
  execution_id: string;
  status: string;
  skill_id: string;
  skill_version?: string;
  trace_id?: string;
  timestamps?: Execution['timestamps'];
  [field: string]: unknown;
}

/**
 * skillrun's POST /skills/{id}/replay/{execution_id}: what to change from the execution replayed.
 * `from_step` (a composite's): rerun from that step, reusing the steps before it (by default the step
 * a failed one failed at, unless `inputs` are edited).
 */
export interface ReplayRequest {
  inputs?: Record<string, unknown>;
  version?: string;
  from_step?: string;
}

export interface InvocationContext {
  trace_id?: string;
  priority?: 'low' | 'normal' | 'high';
  timeout_ms?: number;
  queue_timeout_ms?: number;
  /** What the skill's `concurrency.per_key` counts the execution under (skill.json). */
  concurrency_key?: string;
  /**
   * Calls with the same key (yours, for this skill) within `delay_ms` of each other collapse into
   * one execution: `trailing` (the default) runs it once the calls stop, with the last call's
   * inputs; `leading` runs the first at once and drops the others.
   */
  debounce?: { key: string; delay_ms: number; mode?: 'trailing' | 'leading'; max_delay_ms?: number };
  /** Start this many ms after acceptance (skillrun; up to the service's MAX_DELAY_MS). Not with run_at. */
  delay_ms?: number;
  /** Start at this RFC 3339 time (skillrun; at once if it has passed). Not with delay_ms. */
  run_at?: string;
  /**
   * skillrun: up to 10 distinct tags, each 1 to 64 of `A-Z a-z 0-9 _ . : / -`, to list executions
   * by (`executions({ tag })`); a composite's steps inherit them.
   */
  tags?: string[];
  /** skillrun: a JSON object of at most 4,096 bytes as JSON, kept with the execution; steps inherit it. */
  metadata?: Record<string, unknown>;
  /**
   * skillrun: what the execution and every step under it may spend together; over it, it fails with
   * BUDGET_EXCEEDED and what was spent.
   */
  budget?: { max_tokens?: number; max_cost_usd?: number; max_steps?: number; max_duration_ms?: number };
}

export interface SkillSearchQuery {
  q?: string;
  tag?: string;
  capability_type?: string;
  category?: string;
  limit?: number;
  cursor?: string;
}

export interface SkillPage {
  skills: SkillDescriptor[];
  next_cursor: string | null;
}

/** skillrun's GET /tools formats: OpenAI's two shapes, Anthropic's client tools, MCP's Tool. */
export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'mcp';

/** skillrun's GET /tools: GET /skills' search, and the format (`openai` unless given). */
export interface ToolQuery extends SkillSearchQuery {
  format?: ToolFormat;
}

/** skillrun's GET /tools: the tools, ready to hand to the framework, and the skill each one is. */
export interface ToolDefinitions {
  format: ToolFormat;
  tools: Record<string, unknown>[];
  skills: Array<{ skill_id: string; version: string; tool_name: string; strict?: boolean; notes: string[] }>;
  next_cursor: string | null;
}

/** skillrun's GET /skills/{id}/versions: every available version, highest first. */
export interface SkillVersionList {
  skill_id: string;
  latest: string;
  versions: Array<{
    version: string;
    source: string;
    registered_at?: string;
    deprecated?: { message: string; deprecated_at: string };
    descriptor_url: string;
  }>;
}

/** skillrun's GET /me: who the credentials say the caller is. */
export interface CallerIdentity {
  /** What caller.id must be in this caller's invocations. */
  caller_id: string;
  scopes: string[];
  skills?: string[];
  /** skillrun's roles: what the credential may do with every caller's executions (absent: a caller's). */
  role?: 'viewer' | 'operator' | 'admin';
  method: string;
}

export interface ExecutionQuery {
  skill_id?: string;
  /** A semver range of the version that runs or ran. */
  version?: string;
  /** One status, or several comma-separated (or as an array). */
  status?: string | string[];
  caller_id?: string;
  /** Only the runs of this schedule. */
  schedule_id?: string;
  /** Only the executions of this batch. */
  batch_id?: string;
  /** Only executions with these tags (or several comma-separated): all of them, or any with tag_match. */
  tag?: string | string[];
  tag_match?: 'all' | 'any';
  /** Only executions whose metadata has each of these top-level keys with this value (JSON if not a string). */
  metadata?: Record<string, string>;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

/** skillrun's POST /executions/cancel: how many executions one call canceled, and where to go on. */
export interface BulkCancelResult {
  canceled: number;
  next_cursor: string | null;
}

/** skillrun's POST /skills/{id}/pause and /resume: whether the skill is paused now. */
export interface SkillPauseState {
  skill_id: string;
  paused: boolean;
  paused_at?: string;
  paused_by?: string;
}

/** skillrun's ramp of a skill's version: `percent` of its unpinned callers run `version` (0: rolled back). */
export interface SkillRamp {
  version: string;
  percent: number;
  ramped_at: string;
  ramped_by: string;
}

/** A caller pinned to a version range of a skill. */
export interface VersionPin {
  caller: string;
  version: string;
  pinned_at: string;
  pinned_by: string;
}

/** skillrun's GET/POST/DELETE /skills/{id}/rollout: the skill's ramp, if any, and its pinned callers. */
export interface SkillRollout {
  skill_id: string;
  ramp: SkillRamp | null;
  pins: VersionPin[];
}

/** skillrun's POST /skills/{id}/rollout: ramp `version` to `percent` (0–100) of the unpinned callers. */
export interface RolloutRequest {
  version: string;
  percent: number;
}

export interface ExecutionPage {
  executions: Execution[];
  next_cursor: string | null;
}

/** One invocation of skillrun's POST /batches: what POST invoke's body says, less the caller (the batch's). */
export interface BatchItem {
  skill_id: string;
  /** A semver range: which version runs. */
  version?: string;
  inputs: Record<string, unknown>;
  /** POST invoke's context but for debounce (refused in the item's place: the items launch together). */
  context?: Omit<InvocationContext, 'debounce'>;
  /** The item sent again with it gets the execution it started (POST invoke's Idempotency-Key). */
  idempotency_key?: string;
}

/** An item's place in POST /batches' answer: the execution it started, or why it did not. */
export type BatchSlot = { execution_id: string } | { error: ErrorBody };

/** skillrun's 202 to POST /batches: one place per item, in the items' order. */
export interface BatchAccepted {
  batch_id: string;
  executions: BatchSlot[];
}

/** skillrun's GET /batches/{id}: where a batch's executions stand. */
export interface BatchView {
  batch_id: string;
  caller: { id: string; type: string };
  created_at: string;
  /** How many items the batch had (those refused included). */
  items: number;
  /** Whether every execution of the batch has ended. */
  ended: boolean;
  counts: Record<ExecutionStatus, number>;
  /** The executions in the order of the items that started them. */
  executions: { execution_id: string; skill_id: string; status: ExecutionStatus }[];
}

/**
 * Each run of a schedule's context: an invocation's but for delay_ms, run_at and debounce (its
 * timing is its cron or every_ms, and each run is an execution of its own).
 */
export type ScheduleContext = Omit<InvocationContext, 'delay_ms' | 'run_at' | 'debounce'>;

/** What a schedule invokes and when: the fields it is made with (POST /schedules) and answered with alike. */
export interface ScheduleDefinition {
  skill_id: string;
  /** A semver range, resolved at each run (the latest by default). */
  version?: string;
  /** 5 fields, or 6 with seconds first; exactly one of `cron` and `every_ms`. */
  cron?: string;
  /** At least 1000; the first run at once. */
  every_ms?: number;
  /** The IANA time zone a cron is read in (UTC by default). */
  timezone?: string;
  inputs: Record<string, unknown>;
  context?: ScheduleContext;
}

/** skillrun's POST /schedules: a skill invoked at every due time of a cron pattern or an interval. */
export interface NewSchedule extends ScheduleDefinition {
  /** Who each run invokes as: the authenticated caller by default. */
  caller?: { id: string; type: 'ifay' | 'service' | 'user' };
  /** `skip`: a due time is skipped while the previous run goes on. */
  overlap?: 'allow' | 'skip';
  paused?: boolean;
}

/** skillrun's PATCH /schedules/{id}: what to change (`paused` pauses or resumes; a `version` of null follows the latest). */
export interface ScheduleChange
  extends Partial<Pick<ScheduleDefinition, 'cron' | 'every_ms' | 'timezone' | 'inputs' | 'context'>> {
  version?: string | null;
  overlap?: 'allow' | 'skip';
  paused?: boolean;
}

/** skillrun's POST /schedules/{id}/backfill: a past window (RFC 3339; `to` not after now). */
export interface ScheduleBackfill {
  from: string;
  to: string;
}

/** Its answer: the window's due times queued to run now, each once, and those that had run. */
export interface ScheduleBackfillAccepted {
  schedule_id: string;
  from: string;
  to: string;
  queued: string[];
  already_run: string[];
}

/** What one due time of a schedule came to. */
export interface ScheduleRun {
  due_at: string;
  outcome: 'launched' | 'skipped' | 'failed' | (string & {});
  /** launched: its execution; skipped: the previous run, still going then. */
  execution_id?: string;
  /** launched: that execution's status now. */
  status?: string;
  /** failed: why no execution could start. */
  error?: ErrorBody;
  recorded_at: string;
}

/** A schedule as skillrun answers it. */
export interface Schedule extends ScheduleDefinition {
  schedule_id: string;
  caller: { id: string; type: string };
  overlap: string;
  paused: boolean;
  /** The next due times (none while paused). */
  next_runs: string[];
  /** getSchedule: the latest runs, newest first. */
  last_runs?: ScheduleRun[];
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export interface ScheduleQuery {
  skill_id?: string;
  /** An admin's filter: one caller's schedules. */
  caller_id?: string;
  limit?: number;
  cursor?: string;
}

export interface SchedulePage {
  schedules: Schedule[];
  next_cursor: string | null;
}

/** skillrun's GET /audit: how an administrative act was answered (`unknown`: not yet, or not written). */
export type AuditOutcome = 'succeeded' | 'refused' | 'failed' | 'unknown';

/** One administrative act of skillrun's audit log: who, when, what, from where, and the outcome. */
export interface AuditRecord {
  audit_id: string;
  at: string;
  actor: {
    caller_id: string | null;
    credential: 'api_key' | 'oauth2' | 'custom' | 'none' | 'invalid';
    key_id?: string;
  };
  /** `key.create`, `skill.pause`, `schedule.update`, ... (docs/operations.md lists them). */
  action: string;
  method: string;
  path: string;
  target: Record<string, string>;
  details: Record<string, unknown>;
  address: string;
  outcome: AuditOutcome;
  status?: number;
  error_code?: string;
  /** Where what the act made is (a new schedule, a replay's execution). */
  location?: string;
}

export interface AuditQuery {
  /** Only this caller's acts. */
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  /** RFC 3339: acts at or after it. */
  since?: string;
  /** RFC 3339: acts at or before it. */
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface AuditPage {
  records: AuditRecord[];
  next_cursor: string | null;
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'timeout', 'canceled']);

/** Whether an execution in this status has ended. */
export function isTerminal(status: string): status is TerminalStatus {
  return TERMINAL.has(status);
}

/** skillrun's: an execution's approval (its skill's approval policy), pending or decided. */
export interface ApprovalState {
  state: 'pending' | 'approved' | 'rejected' | 'timed_out';
  /** The rule that asked for it. */
  when?: string;
  approvers?: string[];
  deadline: string;
  decided_by?: string;
  decided_at?: string;
  via?: 'api' | 'link' | 'mcp' | 'a2a';
  reason?: string;
}

/** skillrun's: an approval policy, a skill's (skill.json `approval`) or an operator's for a skill. */
export interface ApprovalPolicy {
  /** `always`, or `field op value` on the inputs (e.g. `amount > 1000`). */
  when: string;
  approvers?: string[];
  timeout_ms?: number;
}

/** GET and PUT /skills/{id}/approval: the operator's policy (null: each version's own applies). */
export interface SkillApprovalState {
  skill_id: string;
  approval: ApprovalPolicy | null;
  set_by?: string;
  set_at?: string;
}

/** A pending approval as an approver sees it (GET /approvals). */
export interface ApprovalView {
  execution_id: string;
  skill_id: string;
  skill_version: string;
  description: string;
  inputs: Record<string, unknown>;
  approval: ApprovalState;
  created_at: string;
  caller: { id: string; type: string };
  urls: { approve: string; reject: string; link: string };
}

export interface ApprovalPage {
  approvals: ApprovalView[];
  next_cursor: string | null;
}

/** POST /approvals/{id}/link: a one-time link that decides the approval without credentials. */
export interface ApprovalLink {
  url: string;
  expires_at: string;
}
