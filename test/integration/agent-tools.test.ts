import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

interface ToolDefinitions {
  format: string;
  tools: Record<string, unknown>[];
  skills: { skill_id: string; tool_name: string; strict?: boolean; notes: string[] }[];
  next_cursor?: string | null;
}

describe('tool definitions: GET /tools and GET /skills/{id}/tools', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo,sleepy,thrower' });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('answers the visible skills as OpenAI function tools by default, a page at a time', async () => {
    const first = await system.client.request<ToolDefinitions>('/tools?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.format).toBe('openai');
    expect(first.body.tools).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await system.client.request<ToolDefinitions>(
      `/tools?limit=2&cursor=${encodeURIComponent(String(first.body.next_cursor))}`,
    );
    const names = [...first.body.skills, ...rest.body.skills].map((skill) => skill.skill_id);
    expect(names).toEqual(['echo', 'sleepy', 'thrower']);
    for (const tool of first.body.tools) {
      expect(tool).toMatchObject({
        type: 'function',
        function: { name: expect.any(String), parameters: { type: 'object' } },
      });
    }
  });

  it('makes a tool strict only where strict mode takes its schema, and says why not', async () => {
    const echo = await system.client.request<ToolDefinitions>('/skills/echo/tools?format=openai-responses');
    expect(echo.status).toBe(200);
    expect(echo.body.tools[0]).toMatchObject({ type: 'function', name: 'echo', strict: false });
    expect(echo.body.skills[0]?.notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining('optional properties'),
        expect.stringContaining('"minLength"'),
      ]),
    );
    const thrower = await system.client.request<ToolDefinitions>('/skills/thrower/tools');
    expect(thrower.body.tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'thrower',
        description: expect.any(String),
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
        strict: true,
      },
    });
  });

  it('answers Anthropic client tools, and a tool_use of one runs its skill', async () => {
    const answer = await system.client.request<ToolDefinitions>('/tools?format=anthropic');
    expect(answer.status).toBe(200);
    expect(answer.body.format).toBe('anthropic');
    for (const tool of answer.body.tools) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,128}$/);
      expect(tool.input_schema).toMatchObject({ type: 'object' });
    }
    // A model's tool_use names the tool: `skills` says which skill that is.
    const toolUse = { name: 'echo', input: { text: 'from a tool_use' } };
    const index = answer.body.skills.findIndex((skill) => skill.tool_name === toolUse.name);
    const validate = new Ajv2020({ strict: false }).compile(answer.body.tools[index]?.input_schema as object);
    expect(validate(toolUse.input)).toBe(true);
    const { final } = await system.client.run(String(answer.body.skills[index]?.skill_id), toolUse.input);
    expect(final).toMatchObject({ status: 'completed' });
  });

  it('answers MCP tools, valid by the MCP SDK schema', async () => {
    const answer = await system.client.request<ToolDefinitions>('/tools?format=mcp');
    expect(answer.body.tools.length).toBe(3);
    for (const tool of answer.body.tools) expect(ToolSchema.safeParse(tool).success).toBe(true);
  });

  it('refuses an unknown format with 400 and an unknown skill with 404, in our envelope', async () => {
    const format = await system.client.request('/tools?format=yaml');
    expect(format.status).toBe(400);
    expect(format.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    const missing = await system.client.request('/skills/nope/tools');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'SKILL_NOT_FOUND' } });
  });
});
