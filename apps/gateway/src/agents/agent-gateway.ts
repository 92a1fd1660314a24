import { SkillA2aHandler } from './a2a/skill-a2a-handler';
import type { AgentDeps } from './agent-deps';
import { McpEndpoint } from './mcp/mcp-endpoint';
import { ToolListWatch } from './tool-list-watch';

/**
 * The agent protocols a gateway serves, built from its services: MCP of both eras (and the watch
 * that tells the sessions and the listen streams when the tool list changes), and A2A. Closed when
 * the gateway shuts down.
 */
export class AgentGateway {
  readonly mcp: McpEndpoint;
  readonly a2a: SkillA2aHandler;
  private readonly watch: ToolListWatch;

  constructor(readonly deps: AgentDeps) {
    this.mcp = new McpEndpoint(deps);
    this.a2a = new SkillA2aHandler(deps);
    this.watch = new ToolListWatch({
      registry: deps.registry,
      intervalMs: deps.listChangedPollMs,
      active: () => this.mcp.listening,
      onChange: () => this.mcp.notifyToolsChanged(),
      logger: deps.logger,
    });
    this.watch.start();
  }

  async close(): Promise<void> {
    this.watch.close();
    this.a2a.close();
    await this.mcp.close();
  }
}
