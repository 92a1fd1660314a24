export { toA2aSkill } from './a2a-skill';
export { type AnthropicTool, toAnthropicTool } from './anthropic-tool';
export { type McpTool, toMcpTool, toStructuredContent } from './mcp-tool';
export { OPENAI_TOOL_NAME, openAiToolName, toOpenAiTool } from './openai-tool';
export { analyzeStrict } from './strict-schema';
export {
  SKILL_MD_NAME,
  type SkillMdFrontmatter,
  skillMdFrontmatter,
  skillMdName,
  toSkillMd,
} from './to-skill-md';
export { ToolDefinitions, ToolFormatQuery, ToolListQuery, toToolDefinitions } from './tool-definitions';
