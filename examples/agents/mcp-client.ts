import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The MCP SDK's 1.x client (revision 2025-11-25: a session); the key (when skills want one) goes on every request.
const url = new URL('/mcp', process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const apiKey = process.env.SKILLRUN_API_KEY;
const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} } }),
);

const { tools } = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));

const result = await client.callTool({ name: 'text_stats', arguments: { text: 'One fish.' } }, undefined, {
  onprogress: (progress) => console.log('progress:', progress.progress),
});
console.log('structuredContent:', JSON.stringify(result.structuredContent));
await client.close();
