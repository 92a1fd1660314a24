import { Type } from '@sinclair/typebox';

/** The agent protocols' settings, part of the gateway's config schema. */
export const AgentConfig = {
  MCP_CALL_WAIT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3600,
    description:
      'How long an MCP tools/call waits for the skill to end before it answers where the result will be (the execution goes on); a task-augmented call answers at once.',
  }),
  MCP_TOOLS_PAGE_SIZE: Type.Integer({
    default: 50,
    minimum: 1,
    maximum: 100,
    description: 'Tools per page of MCP tools/list (nextCursor for the rest).',
  }),
  MCP_LIST_CHANGED_POLL_MS: Type.Integer({
    default: 5000,
    minimum: 100,
    description:
      'How often the registry is read for changes while MCP sessions are open, to send notifications/tools/list_changed.',
  }),
  A2A_SEND_WAIT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3600,
    description:
      'How long a blocking A2A SendMessage waits for the task to end; it then answers the task as it is (working), which GetTask or SubscribeToTask follow.',
  }),
  MCP_MAX_SESSIONS: Type.Integer({
    default: 1000,
    minimum: 1,
    description:
      'MCP sessions one gateway keeps at once; at it, a new initialize closes the least recently used session that is not answering a request (its client re-initializes), and is 503 only when every one is.',
  }),
  MCP_MAX_SESSIONS_PER_CALLER: Type.Integer({
    default: 20,
    minimum: 1,
    description:
      'MCP sessions one caller (an API key or token subject) may keep on one gateway; past it a new initialize is 429.',
  }),
  MCP_MAX_SESSIONS_PER_ADDRESS: Type.Integer({
    default: 10,
    minimum: 1,
    description:
      'MCP sessions one client address may keep on one gateway without credentials; past it a new initialize is 429.',
  }),
};
