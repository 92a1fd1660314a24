import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '@skillrun/core';
import { NANO_DOLLARS, type TokenCost } from '@skillrun/core/data';

/** What a model's tokens cost: the price table's row for it (llm.json's `price`, or the worker's). */
export const TokenPrice = Type.Object(
  {
    input_usd_per_mtok: Type.Number({ minimum: 0, description: 'US dollars per million prompt tokens.' }),
    output_usd_per_mtok: Type.Number({
      minimum: 0,
      description: 'US dollars per million completion tokens.',
    }),
  },
  { additionalProperties: false },
);
export type TokenPrice = Static<typeof TokenPrice>;

const STRUCTURED_OUTPUTS = ['json_schema', 'json_object', 'none'] as const;
export type StructuredOutput = (typeof STRUCTURED_OUTPUTS)[number];

/** `llm.json`, optional, beside an llm skill's prompt.md: what this skill changes of the worker's LLM settings. */
export const LlmSkillSettings = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1, description: 'The model to ask, e.g. gpt-4o-mini.' })),
    base_url: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description: 'An OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 for Ollama.',
      }),
    ),
    api_key_env: Type.Optional(
      Type.String({
        pattern: '^[A-Z_][A-Z0-9_]*$',
        description: "The environment variable holding this skill's API key (keys never go in files).",
      }),
    ),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** How the answer is held to JSON: a schema, any JSON object, or only the prompt's instruction. */
    structured_output: Type.Optional(StringEnum(STRUCTURED_OUTPUTS)),
    max_retries: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10, description: 'Retries of a rate-limited or failed call.' }),
    ),
    price: Type.Optional({
      ...TokenPrice,
      description: "What this skill's model costs, over the worker's LLM_*_USD_PER_MTOK.",
    }),
  },
  { additionalProperties: false },
);
export type LlmSkillSettings = Static<typeof LlmSkillSettings>;

/** The worker-wide settings (LLM_* variables), which a skill's llm.json may override. */
export interface LlmDefaults {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  structuredOutput: StructuredOutput;
  maxRetries: number;
  /** The worker's price of its models' tokens, if it has one. */
  price?: TokenPrice;
}

export interface ResolvedLlmSettings {
  baseUrl: string;
  /** Absent for providers that need none (Ollama). */
  apiKey?: string;
  /** Where the key is configured, for messages: `LLM_API_KEY` or the skill's api_key_env. */
  apiKeySource: string;
  model: string;
  temperature?: number;
  maxTokens?: number;
  structuredOutput: StructuredOutput;
  maxRetries: number;
  /** Nano-dollars per prompt and completion token; none: its calls cost nothing known. */
  cost?: TokenCost;
}

export type LlmSettingsResolution =
  | { ok: true; settings: ResolvedLlmSettings }
  | { ok: false; missing: string[] };

const WORKER_KEY_VARIABLE = 'LLM_API_KEY';

/** The skill's settings over the worker's; `missing` names what to set when something required is not. */
export function resolveLlmSettings(
  defaults: LlmDefaults,
  skill: LlmSkillSettings,
  env: NodeJS.ProcessEnv,
): LlmSettingsResolution {
  const baseUrl = skill.base_url ?? defaults.baseUrl;
  const model = skill.model ?? defaults.model;
  const key = apiKeyOf(defaults, skill, env);
  const missing = [
    ...(baseUrl ? [] : ['LLM_BASE_URL (or base_url in llm.json)']),
    ...(model ? [] : ['LLM_MODEL (or model in llm.json)']),
    ...('missing' in key ? [key.missing] : []),
  ];
  if (!baseUrl || !model || 'missing' in key) return { ok: false, missing };
  return {
    ok: true,
    settings: {
      baseUrl,
      ...(key.apiKey ? { apiKey: key.apiKey } : {}),
      apiKeySource: key.source,
      model,
      ...(skill.temperature === undefined ? {} : { temperature: skill.temperature }),
      ...(skill.max_tokens === undefined ? {} : { maxTokens: skill.max_tokens }),
      structuredOutput: skill.structured_output ?? defaults.structuredOutput,
      maxRetries: skill.max_retries ?? defaults.maxRetries,
      ...costOf(skill.price ?? defaults.price),
    },
  };
}

function apiKeyOf(
  defaults: LlmDefaults,
  skill: LlmSkillSettings,
  env: NodeJS.ProcessEnv,
): { apiKey?: string; source: string } | { missing: string } {
  const variable = skill.api_key_env;
  if (variable) {
    const apiKey = env[variable];
    return apiKey ? { apiKey, source: variable } : { missing: variable };
  }
  // The worker's key is for the worker's provider: a skill that talks to another one names its own.
  if (skill.base_url && defaults.baseUrl && originOf(skill.base_url) !== originOf(defaults.baseUrl)) {
    return { source: 'api_key_env in llm.json' };
  }
  return defaults.apiKey
    ? { apiKey: defaults.apiKey, source: WORKER_KEY_VARIABLE }
    : { source: WORKER_KEY_VARIABLE };
}

/** A price in dollars per million tokens as nano-dollars per token. */
function costOf(price: TokenPrice | undefined): { cost?: TokenCost } {
  if (!price) return {};
  const perToken = (usdPerMtok: number) => (usdPerMtok * NANO_DOLLARS) / 1_000_000;
  return { cost: { input: perToken(price.input_usd_per_mtok), output: perToken(price.output_usd_per_mtok) } };
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}
