import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** How many times connectMcp asks again after a 503. */
const CONNECT_TRIES = 10;

/** The MCP SDK's own client, connected to a gateway's /mcp over Streamable HTTP with these headers. */
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
