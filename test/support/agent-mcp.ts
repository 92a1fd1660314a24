import {
  type ClientCapabilities,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** How many times connectMcp asks again after a 503. */
const CONNECT_TRIES = 10;

/**
 * The MCP SDK's own 1.x client (revision 2025-11-25: a session), connected to a gateway's /mcp over
 * Streamable HTTP with these headers.
 */
export async function connectMcp(
  baseUrl: string,
  headers: Record<string, string> = {},
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  // A 503 means the gateway could not reach Redis in time (a just-started gateway on a loaded
  // machine) and nothing happened: asked again, as spec 001's consumers do.
  for (let tries = 1; ; tries++) {
    const client = new Client({ name: 'skillrun-test', version: '1.0.0' }, options);
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers },
    });
    try {
      await client.connect(transport);
      return client;
    } catch (error) {
      if (!/SERVICE_UNAVAILABLE/.test(String(error)) || tries === CONNECT_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * The MCP SDK's 2.x client, speaking revision 2026-07-28 (pinned: no initialize) to a gateway's
 * /mcp; `prepare` sets it up before it connects (its handlers of input requests, say).
 */
export async function connectModernMcp(
  baseUrl: string,
  headers: Record<string, string> = {},
  options: { capabilities?: ClientCapabilities; prepare?: (client: ModernClient) => void } = {},
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'skillrun-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    },
  );
  options.prepare?.(client);
  await client.connect(new ModernHttpTransport(new URL('/mcp', baseUrl), { requestInit: { headers } }));
  return client;
}
