import {
  parseVersionRange,
  SchemaValidator,
  type ToolDefinitions,
  ToolFormatQuery,
  ToolListQuery,
  toToolDefinitions,
} from '@skillrun/core';
import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import type { RequestHeaders } from '../http/request-headers';
import type { SkillDiscovery } from '../skills/skill-discovery';

export interface ToolRoutesDeps {
  discovery: SkillDiscovery;
  identities: Identities;
}

const listQuery = new SchemaValidator(ToolListQuery, 'query', { coerceTypes: true });
const oneQuery = new SchemaValidator(ToolFormatQuery, 'query');

/**
 * GET /tools and GET /skills/{id}/tools: the skills the caller may see (as GET /skills shows them)
 * as tool definitions an agent framework loads as they are: OpenAI function tools (Chat
 * Completions or Responses shape) or MCP Tool objects (as /mcp lists them: tasks supported).
 */
export function toolRoutes(router: Router, depsOf: () => ToolRoutesDeps): void {
  const viewer = async (headers: RequestHeaders) => principalOf(await depsOf().identities.of(headers));

  router.get('/tools', async (req, res) => {
    const deps = depsOf();
    const { format = 'openai', ...search } = listQuery.parse({ ...req.query });
    const page = await deps.discovery.search(search, await viewer(req.headers));
    const answer: ToolDefinitions = {
      ...toToolDefinitions(page.skills, format, { tasks: true }),
      next_cursor: page.next_cursor,
    };
    res.json(answer);
  });

  router.get('/skills/:skillId/tools', async (req: Request<{ skillId: string }>, res) => {
    const deps = depsOf();
    const { format = 'openai', version } = oneQuery.parse({ ...req.query });
    const range = version === undefined ? undefined : parseVersionRange(version, '/version');
    const descriptor = await deps.discovery.describe(req.params.skillId, range, await viewer(req.headers));
    const answer: ToolDefinitions = toToolDefinitions([descriptor], format, { tasks: true });
    res.json(answer);
  });
}
