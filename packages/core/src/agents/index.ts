export { toA2aSkill } from './a2a-skill';
export { type AnthropicTool, toAnthropicTool } from './anthropic-tool';
export { type McpTool, toMcpTool, toStructuredContent } from './mcp-tool';
export { OPENAI_TOOL_NAME, openAiToolName, toOpenAiTool } from './openai-tool';
export { analyzeStrict } from './strict-schema';
export { ToolDefinitions, ToolFormatQuery, ToolListQuery, toToolDefinitions } from './tool-definitions';
