import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// A skill's streamed output over MCP: a call that asks for progress (onprogress: the SDK sends a
// progressToken) gets each chunk the skill emits as a notifications/progress whose message is the
// chunk (text as it is, any other JSON as its JSON text), in order, before the result.
const url = new URL('/mcp', process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const apiKey = process.env.SKILLRUN_API_KEY;
const client = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} } }),
);

const result = await client.callTool(
  { name: 'countdown', arguments: { from: 3, pause_ms: 50 } },
  { onprogress: ({ message }) => console.log('chunk:', message?.trimEnd()) },
);
console.log('structuredContent:', JSON.stringify(result.structuredContent));
await client.close();
