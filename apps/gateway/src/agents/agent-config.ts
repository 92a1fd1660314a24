import { Type } from '@sinclair/typebox';
import { ConfigError } from '@skillrun/core';

/** The agent protocols' settings, part of the gateway's config schema. */
export const AgentConfig = {
  MCP_CALL_WAIT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3600,
    description:
      'How long an MCP tools/call waits for the skill to end before it answers where the result will be, or a task handle to a client of revision 2026-07-28 that declares the tasks extension (the execution goes on); a task-augmented call of revision 2025-11-25 answers at once.',
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
      'How often the registry is read for changes while MCP sessions or subscriptions/listen streams are open, to send notifications/tools/list_changed; also the ttlMs of a tools/list answer of revision 2026-07-28 (no gateway notices a change sooner).',
  }),
  A2A_SEND_WAIT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3600,
    description:
      'How long a blocking A2A SendMessage waits for the task to end; it then answers the task as it is (working), which GetTask or SubscribeToTask follow.',
  }),
  A2A_DEFAULT_SKILL: Type.Optional(
    Type.String({
      maxLength: 128,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description:
        "The skill an A2A message that names none runs (a generic agent's plain text), the text as its one string input: the one string its input schema requires, or, if it requires none, its one string property. Without it, and with LLM_BASE_URL and LLM_MODEL, a model picks one of the caller's skills; with neither, such a message is refused with how to name a skill.",
    }),
  ),
  MCP_MAX_SESSIONS: Type.Integer({
    default: 1000,
    minimum: 1,
    description:
      'MCP sessions one gateway keeps at once; at it, a new initialize closes the least recently used session that is not answering a request (its client re-initializes), and is 503 only when every one is. Also the subscriptions/listen streams (revision 2026-07-28) one gateway keeps open; past it a new one is refused (-32603).',
  }),
  MCP_ALLOWED_ORIGINS: Type.Optional(
    Type.String({
      description:
        "Origins (scheme://host[:port], comma-separated) of web pages that may use /mcp besides PUBLIC_BASE_URL's own; a request with any other Origin header is 403 (DNS rebinding). Requests without Origin (non-browser clients) and from the page's own address when it is an IP address or localhost always pass.",
    }),
  ),
  MCP_MAX_SESSIONS_PER_CALLER: Type.Integer({
    default: 20,
    minimum: 1,
    description:
      "MCP sessions one caller (an API key or token subject) may keep on one gateway; at it, a new initialize closes the caller's least recently used session that is not answering a request, and is 429 only when every one is. Also its subscriptions/listen streams (revision 2026-07-28) on one gateway, counted apart; past it 429.",
  }),
  MCP_MAX_SESSIONS_PER_ADDRESS: Type.Integer({
    default: 10,
    minimum: 1,
    description:
      "MCP sessions one client address may keep on one gateway without credentials; at it, as MCP_MAX_SESSIONS_PER_CALLER, the address's least recently used idle session makes room (429 when none is idle). Also its subscriptions/listen streams, counted apart; past it 429.",
  }),
};

/** An origin as browsers send it, from one written with or without a default port or a final slash. */
function originOf(entry: string): string | undefined {
  if (!URL.canParse(entry)) return undefined;
  const url = new URL(entry);
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return bare && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined;
}

/** MCP_ALLOWED_ORIGINS as the origins it lists, each checked to be one (no path, no wildcard). */
export function allowedOriginsOf(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const origin = originOf(entry);
      if (origin === undefined) {
        throw new ConfigError(
          `Invalid configuration:\n  MCP_ALLOWED_ORIGINS: "${entry}" is not an origin (scheme://host[:port], e.g. https://app.example.com)`,
        );
      }
      return origin;
    });
}
