import { LlmBody } from '../bodies/llm-body';
import type { WorkerShared } from '../worker-shared';
import { LlmClient } from './llm-client';

/** The body of llm skills: the provider the LLM_* settings name, unless a skill says otherwise. */
export function buildLlmBody({ config, env, metrics, store, schemas }: WorkerShared): LlmBody {
  return new LlmBody({
    client: new LlmClient(),
    defaults: {
      ...(config.LLM_BASE_URL ? { baseUrl: config.LLM_BASE_URL } : {}),
      ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
      ...(config.LLM_MODEL ? { model: config.LLM_MODEL } : {}),
      structuredOutput: config.LLM_STRUCTURED_OUTPUT,
      maxRetries: config.LLM_MAX_RETRIES,
    },
    env,
    schemas,
    store,
    onUsage: (skill, usage) => metrics.llmUsage(skill.definition.name, usage),
  });
}
