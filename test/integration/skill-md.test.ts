import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mcpRequest } from '../support/mcp-json-rpc';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

/** GET a SKILL.md over real HTTP: the status, the content type and the text. */
async function getSkillMd(baseUrl: string, path: string) {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function frontmatterOf(skillMd: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(skillMd);
  return parse(match?.[1] ?? '') as Record<string, unknown>;
}

const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

describe('skills as Agent Skills: GET /skills/{id}/SKILL.md, and the MCP skills extension', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo,flaky' });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("answers the skill's SKILL.md as Markdown, with the descriptor's name, description and version", async () => {
    const descriptor = (await system.client.request<{ description: string; version: string }>('/skills/echo'))
      .body;
    const answer = await getSkillMd(system.gateway.url, '/skills/echo/SKILL.md');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(frontmatterOf(answer.text)).toEqual({
      name: 'echo',
      description: descriptor.description,
      metadata: { 'skillrun-id': 'echo', version: descriptor.version },
    });
    expect(answer.text).toContain(`POST ${system.gateway.url}/skills/echo/invoke`);
    expect(answer.text).toContain('| `text` | string |');
  });

  it('answers the best version in a range, and 404 in the error envelope when none is there', async () => {
    const inRange = await getSkillMd(system.gateway.url, '/skills/echo/SKILL.md?version=%5E1');
    expect(inRange.status).toBe(200);
    for (const path of ['/skills/echo/SKILL.md?version=%5E99', '/skills/no_such_skill/SKILL.md']) {
      const missing = await system.client.request<{ error: { code: string } }>(path);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
      expect(missing.body.error.code).toBe('SKILL_NOT_FOUND');
    }
  });

  it('says a deprecated version is deprecated, with the Deprecation header', async () => {
    const deprecated = await system.client.request('/skills/flaky/versions/1.0.0/deprecation', {
      method: 'PUT',
      json: { message: 'use echo' },
      headers: ADMIN_HEADERS,
    });
    expect(deprecated.status).toBe(200);
    const answer = await getSkillMd(system.gateway.url, '/skills/flaky/SKILL.md?version=1.0.0');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(String(frontmatterOf(answer.text).description)).toContain('Deprecated: use echo');
    expect(answer.text).toContain('> **Deprecated**');
  });

  it('declares the skills extension and resources on the stateless MCP server (2026-07-28)', async () => {
    const discovered = await mcpRequest(system.gateway.url, 'server/discover');
    expect(discovered.body).toMatchObject({
      result: { capabilities: { resources: expect.any(Object), extensions: { [SKILLS_EXTENSION]: {} } } },
    });
  });

  it('lists each skill as a skills/list entry whose one file is the SKILL.md, with its size and digest', async () => {
    const skillMd = (await getSkillMd(system.gateway.url, '/skills/echo/SKILL.md')).text;
    const bytes = Buffer.from(skillMd, 'utf8');
    const entry = {
      uri: 'skill://echo/SKILL.md',
      frontmatter: frontmatterOf(skillMd),
      resources: [
        {
          uri: 'skill://echo/SKILL.md',
          digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
          size: bytes.length,
        },
      ],
    };
    const listed = await mcpRequest(system.gateway.url, 'skills/list');
    const result = listed.body.result as { skills: { uri: string }[]; ttlMs: number; cacheScope: string };
    expect(result.skills.map((skill) => skill.uri)).toEqual([
      'skill://echo/SKILL.md',
      'skill://flaky/SKILL.md',
    ]);
    expect(result.skills[0]).toEqual(entry);
    expect(result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'private' });

    const got = await mcpRequest(system.gateway.url, 'skills/get', { uri: 'skill://echo/SKILL.md' });
    expect(got.body).toMatchObject({ result: { skill: entry } });

    // Revision 2026-07-28 names the resource read in Mcp-Name as well.
    const read = await mcpRequest(
      system.gateway.url,
      'resources/read',
      { uri: 'skill://echo/SKILL.md' },
      { headers: { 'mcp-name': 'skill://echo/SKILL.md' } },
    );
    expect(read.body).toMatchObject({
      result: { contents: [{ uri: 'skill://echo/SKILL.md', mimeType: 'text/markdown', text: skillMd }] },
    });
  });

  it('lists no resources: the skills are found with skills/list', async () => {
    const listed = await mcpRequest(system.gateway.url, 'resources/list');
    expect(listed.body).toMatchObject({ result: { resources: [] } });
  });

  it('answers Invalid params for a skill it does not serve', async () => {
    for (const uri of ['skill://no-such-skill/SKILL.md', 'skill://echo/other.md']) {
      const got = await mcpRequest(system.gateway.url, 'skills/get', { uri });
      expect(got.body).toMatchObject({ error: { code: -32602 } });
    }
  });
});
