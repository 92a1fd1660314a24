import {
  Client,
  type ElicitRequestFormParams,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';

// A task skill over MCP revision 2026-07-28: a client that takes form elicitation is asked for the
// task's output (`input_required`), and the SDK's 2.x client retries the call with the answer by
// itself, which hands the task in. A real client shows the form to its user; this one fills it.
const url = new URL('/mcp', process.env.SKILLRUN_URL ?? 'http://localhost:3000');
const apiKey = process.env.SKILLRUN_API_KEY;
const client = new Client(
  { name: 'my-agent', version: '1.0.0' },
  { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler('elicitation/create', async (request) => {
  const form = request.params as ElicitRequestFormParams;
  console.log('asked:', form.message.split('\n')[0]);
  console.log('fields:', Object.keys(form.requestedSchema.properties).join(', '));
  return { action: 'accept', content: { approved: true, comment: 'within budget' } };
});
await client.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} } }),
);

const result = await client.callTool({
  name: 'expense_approval',
  arguments: { amount: 42.5, purpose: 'team lunch' },
});
console.log('structuredContent:', JSON.stringify(result.structuredContent));
await client.close();
