import { Type } from '@sinclair/typebox';

/**
 * The OpenAI-compatible API a process asks: the worker's llm skills (which their llm.json may
 * override), and the gateway's A2A router of plain-text messages. One definition, so that a
 * standalone service and a split one read the same variables the same way.
 */
export const LlmProviderConfig = {
  LLM_BASE_URL: Type.Optional(
    Type.String({
      format: 'uri',
      pattern: '^https?://',
      description:
        "OpenAI-compatible API for llm skills (and the gateway's A2A router of plain-text messages), e.g. https://api.openai.com/v1.",
    }),
  ),
  LLM_API_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'API key for LLM_BASE_URL (none for Ollama).' }),
  ),
  LLM_MODEL: Type.Optional(
    Type.String({ minLength: 1, description: "Model for llm skills (and the gateway's A2A router)." }),
  ),
};
