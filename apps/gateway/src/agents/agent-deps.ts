import type { Logger } from '@skillrun/core';
import type { ExecutionStore, SkillRegistry } from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import type { ExecutionCanceler } from '../executions/execution-canceler';
import type { ExecutionReader } from '../executions/execution-reader';
import type { InvocationService } from '../invocations/invocation-service';
import type { SkillDiscovery } from '../skills/skill-discovery';

/** The agent protocols' settings (MCP_*), from the gateway's config. */
export interface AgentSettings {
  /** MCP_CALL_WAIT_SECONDS: how long tools/call waits for the execution to end. */
  callWaitSeconds: number;
  /** A2A_SEND_WAIT_SECONDS: how long a blocking A2A SendMessage waits for the task to end. */
  a2aSendWaitSeconds: number;
  /** The organization the Agent Card names (PROVIDER_NAME). */
  providerName: string;
  /** MCP_TOOLS_PAGE_SIZE: tools per tools/list page. */
  toolsPageSize: number;
  /** MCP_LIST_CHANGED_POLL_MS: how often the registry is checked for changes while MCP sessions are open. */
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
  baseUrl: string;
  logger: Logger;
}
