/** The `_meta` keys of revision 2026-07-28's per-request envelope. */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type Json = Record<string, unknown>;

export interface RpcOptions {
  /** The revision the request claims, in `_meta` and MCP-Protocol-Version; 2026-07-28 unless said. */
  version?: string;
  /** The client's capabilities, in `_meta`. */
  capabilities?: Json;
  /** More header fields, or ones that replace what the revision asks (Mcp-Method, Mcp-Name). */
  headers?: Record<string, string>;
  /** No `_meta` envelope at all. */
  bare?: boolean;
  signal?: AbortSignal;
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response (from the last message of an SSE stream). */
  body: Json;
  /** The notifications an SSE answer carried before the response. */
  notifications: Json[];
  /** Every message of the answer, in the order it came. */
  messages: Json[];
}

let nextId = 1;

/**
 * A request of revision 2026-07-28 over plain HTTP, as its transport binding spells it (the `_meta`
 * envelope, MCP-Protocol-Version, Mcp-Method and Mcp-Name): for what the SDK's client does not do
 * (the tasks extension) and what a conforming client never sends (bad input).
 */
export async function mcpRequest(
  baseUrl: string,
  method: string,
  params: Json = {},
  options: RpcOptions = {},
): Promise<RpcAnswer> {
  const version = options.version ?? '2026-07-28';
  const envelope = {
    [PROTOCOL_VERSION_KEY]: version,
    [CLIENT_CAPABILITIES_KEY]: options.capabilities ?? {},
    [CLIENT_INFO_KEY]: { name: 'skillrun-raw', version: '1.0.0' },
  };
  const meta = { ...(options.bare ? {} : envelope), ...((params._meta as Json | undefined) ?? {}) };
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } };
  const name = params.name ?? params.taskId;
  const response = await fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = JSON.parse(text) as Json;
    return { status: response.status, headers: response.headers, body, notifications: [], messages: [body] };
  }
  const messages = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length)) as Json);
  return {
    status: response.status,
    headers: response.headers,
    body: messages.find((message) => 'result' in message || 'error' in message) ?? {},
    notifications: messages.filter((message) => 'method' in message),
    messages,
  };
}
