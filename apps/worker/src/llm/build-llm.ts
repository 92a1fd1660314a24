import { LlmBody } from '../bodies/llm-body';
import type { WorkerShared } from '../worker-shared';
import { LlmClient } from './llm-client';
import type { TokenPrice } from './llm-settings';

/** The body of llm skills: the provider the LLM_* settings name, unless a skill says otherwise. */
export function buildLlmBody({ config, env, metrics, store, schemas, dailySpend }: WorkerShared): LlmBody {
  return new LlmBody({
    client: new LlmClient(),
    defaults: {
      ...(config.LLM_BASE_URL ? { baseUrl: config.LLM_BASE_URL } : {}),
      ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
      ...(config.LLM_MODEL ? { model: config.LLM_MODEL } : {}),
      structuredOutput: config.LLM_STRUCTURED_OUTPUT,
      maxRetries: config.LLM_MAX_RETRIES,
      ...workerPrice(config),
    },
    env,
    schemas,
    store,
    dailySpend,
    onUsage: (skill, usage) => metrics.llmUsage(skill.definition.name, usage),
    onCost: (skill, caller, costNano) => metrics.cost(skill.definition.name, caller, costNano),
  });
}

/** The worker's row of the price table: both prices, or none (a half-priced model would mislead). */
function workerPrice(config: WorkerShared['config']): { price?: TokenPrice } {
  const { LLM_INPUT_USD_PER_MTOK: input, LLM_OUTPUT_USD_PER_MTOK: output } = config;
  if (input === undefined && output === undefined) return {};
  return { price: { input_usd_per_mtok: input ?? 0, output_usd_per_mtok: output ?? 0 } };
}
