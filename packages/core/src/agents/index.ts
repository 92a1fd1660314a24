export { A2A_SECURITY_SCHEMES, type A2aSkill, toA2aSkill } from './a2a-skill';
export {
  MCP_META_KEY,
  type McpTool,
  type McpToolOptions,
  toMcpTool,
  toStructuredContent,
  WRAPPED_OUTPUT,
} from './mcp-tool';
export {
  OPENAI_TOOL_NAME,
  type OpenAiChatTool,
  type OpenAiResponsesTool,
  type OpenAiToolMapping,
  openAiToolName,
  toChatCompletionsTool,
  toOpenAiTool,
} from './openai-tool';
export { analyzeStrict, type StrictAnalysis } from './strict-schema';
export {
  ToolDefinitions,
  ToolFormat,
  ToolFormatQuery,
  ToolListQuery,
  toToolDefinitions,
} from './tool-definitions';
