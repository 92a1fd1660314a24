import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The MCP SDK's own client, connected to a gateway's /mcp over Streamable HTTP with these headers. */
export async function connectMcp(
  baseUrl: string,
  headers: Record<string, string> = {},
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const client = new Client({ name: 'skillrun-test', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}
