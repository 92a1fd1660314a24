import type { Logger } from '@skillrun/core';
import type { TaskNotes } from '@skillrun/core/a2a';
import type { ExecutionStore, SkillRegistry, WebhookStore } from '@skillrun/core/data';
import type { ApprovalDesk } from '../approvals/approval-desk';
import type { ApprovalsSlice } from '../approvals/build-approvals';
import type { Identities } from '../auth/identities';
import type { ExecutionsSlice } from '../executions/build-executions';
import type { ExecutionCanceler } from '../executions/execution-canceler';
import type { ExecutionHistory } from '../executions/execution-history';
import type { ExecutionReader } from '../executions/execution-reader';
import type { InvocationsSlice } from '../invocations/build-invocations';
import type { InvocationService } from '../invocations/invocation-service';
import type { SkillsSlice } from '../skills/build-skills';
import type { SkillDiscovery } from '../skills/skill-discovery';
import type { TasksSlice } from '../tasks/build-tasks';
import type { TaskDesk } from '../tasks/task-desk';
import type { TaskSecret } from '../tasks/task-secret';
import type { WebhookUrlCheck } from '../webhooks/webhook-url-check';
import type { LlmRouteSettings } from './a2a/llm-route';

/** The agent protocols' settings (MCP_*), from the gateway's config. */
export interface AgentSettings {
  /** MCP_CALL_WAIT_SECONDS: how long tools/call waits for the execution to end. */
  callWaitSeconds: number;
  /** A2A_SEND_WAIT_SECONDS: how long a blocking A2A SendMessage waits for the task to end. */
  a2aSendWaitSeconds: number;
  /** A2A_DEFAULT_SKILL: the skill a plain-text A2A message runs. */
  a2aDefaultSkill?: string;
  /** The LLM that routes plain-text A2A messages without a default skill (LLM_BASE_URL, LLM_MODEL). */
  a2aRouterLlm?: LlmRouteSettings;
  /** The organization the Agent Card names (PROVIDER_NAME). */
  providerName: string;
  /** MCP_TOOLS_PAGE_SIZE: tools per tools/list page. */
  toolsPageSize: number;
  /** MCP_LIST_CHANGED_POLL_MS: how often the registry is checked for changes while MCP sessions are open; a tools/list's ttlMs. */
  listChangedPollMs: number;
  /** MCP_MAX_SESSIONS: MCP sessions this gateway keeps at once. */
  maxSessions: number;
  /** MCP_MAX_SESSIONS_PER_CALLER: of them, one caller's. */
  maxSessionsPerCaller: number;
  /** MCP_MAX_SESSIONS_PER_ADDRESS: of them, one anonymous client address's. */
  maxSessionsPerAddress: number;
  /** MCP_ALLOWED_ORIGINS: web pages elsewhere than the base URL that may use /mcp. */
  allowedOrigins: readonly string[];
  /** How long an execution's record lives after it ends (EXECUTION_TTL_SECONDS): a task's ttl. */
  retentionSeconds: number;
  /** TASK_LINK_TTL_SECONDS: how long what hands a task in over MCP (its requestState) works, as a link does. */
  handInSeconds: number;
  /** To find an execution's skill from its id alone (an MCP or A2A task id). */
  store: ExecutionStore;
  /** Read for changes of the tool list while MCP sessions are open. */
  registry: SkillRegistry;
}

/** What the agent protocols are served from: the gateway's own services, and their settings. */
export interface AgentDeps extends AgentSettings {
  discovery: SkillDiscovery;
  identities: Identities;
  invocations: InvocationService;
  executions: ExecutionReader;
  canceler: ExecutionCanceler;
  /** Hands tasks in, as POST /tasks/{id}/complete does (MCP's multi-round-trip). */
  tasks: TaskDesk;
  /** What the state MCP hands a task in by is signed with (a key derived from the task links' secret). */
  taskSecret: TaskSecret;
  /** Decides approvals, as POST /approvals/{id}/approve does (MCP's multi-round-trip, A2A's input-required). */
  approvals: ApprovalDesk;
  /** The caller's executions, which A2A's ListTasks lists. */
  history: ExecutionHistory;
  /** What A2A keeps of its tasks: the contexts clients name, how plain text was routed. */
  notes: TaskNotes;
  /** A2A tasks' push notification configurations are webhooks of their executions. */
  webhooks: WebhookStore;
  webhookUrls: WebhookUrlCheck;
  baseUrl: string;
  logger: Logger;
}

/** The slices agents are served from: skills to list as tools, invoked, read and canceled, tasks to hand in, approvals to decide. */
export interface AgentSources {
  skills: SkillsSlice;
  invocations: InvocationsSlice;
  executions: ExecutionsSlice;
  tasks: TasksSlice;
  approvals: ApprovalsSlice;
}
