import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// The MCP SDK's 2.x client. `auto` asks server/discover first and speaks revision 2026-07-28 to a
// server that serves it (no session: each request carries its version and capabilities).
const url = new URL('/mcp', process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const apiKey = process.env.SKILLRUN_API_KEY;
const client = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} } }),
);
console.log('revision:', client.getNegotiatedProtocolVersion());
console.log('served:', client.getDiscoverResult()?.supportedVersions.join(', '));

const { tools } = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));

const result = await client.callTool(
  { name: 'text_stats', arguments: { text: 'One fish.' } },
  { onprogress: (progress) => console.log('progress:', progress.progress) },
);
console.log('structuredContent:', JSON.stringify(result.structuredContent));
await client.close();
