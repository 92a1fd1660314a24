/**
 * The protocol's shapes as this client reads them (spec 000's Skill Descriptor, spec 001's
 * execution and error envelope). Declared here rather than imported from `@skillrun/core`, so that
 * the published package depends on nothing: `test/unit/client-protocol-types.test.ts` checks at
 * compile time that core's types, the service's source of truth, are assignable to these.
 * Only what a consumer reads is required; every provider may add fields.
 */

export type ExecutionStatus = 'accepted' | 'running' | 'completed' | 'failed' | 'timeout' | 'canceled';
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
  timestamps?: { created_at?: string; updated_at?: string; started_at?: string; completed_at?: string };
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
  };
  parent?: { execution_id: string; step: string };
  steps?: {
    step: string;
    skill_id: string;
    skill_version?: string;
    execution_id?: string;
    status: string;
    attempt: number;
  }[];
  task?: { state: 'open' | 'claimed'; claimed_by?: string; claimed_at?: string; deadline: string };
  replay_of?: string;
  trace_id: string;
  priority: string;
  caller: { id: string; type: string };
  timestamps: { created_at: string; updated_at: string; started_at?: string; completed_at?: string };
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

export interface InvocationContext {
  trace_id?: string;
  priority?: 'low' | 'normal' | 'high';
  timeout_ms?: number;
  queue_timeout_ms?: number;
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
  method: string;
}

export interface ExecutionQuery {
  skill_id?: string;
  /** One status, or several comma-separated (or as an array). */
  status?: string | string[];
  caller_id?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface ExecutionPage {
  executions: Execution[];
  next_cursor: string | null;
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'timeout', 'canceled']);

/** Whether an execution in this status has ended. */
export function isTerminal(status: string): status is TerminalStatus {
  return TERMINAL.has(status);
}
