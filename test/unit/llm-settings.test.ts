import { SchemaValidator } from '@skillrun/core';
import { type LlmDefaults, LlmSkillSettings, resolveLlmSettings } from '@skillrun/worker';
import { describe, expect, it } from 'vitest';

const worker: LlmDefaults = {
  baseUrl: 'https://llm.example.com/v1',
  apiKey: 'sk-worker',
  model: 'small-model',
  structuredOutput: 'json_schema',
  maxRetries: 2,
};

describe('resolveLlmSettings', () => {
  it("uses the worker's settings when the skill changes nothing", () => {
    expect(resolveLlmSettings(worker, {}, {})).toEqual({
      ok: true,
      settings: {
        baseUrl: 'https://llm.example.com/v1',
        apiKey: 'sk-worker',
        apiKeySource: 'LLM_API_KEY',
        model: 'small-model',
        structuredOutput: 'json_schema',
        maxRetries: 2,
      },
    });
  });

  it('names the base URL and the model when neither is set anywhere', () => {
    const bare: LlmDefaults = { structuredOutput: 'json_schema', maxRetries: 2 };
    expect(resolveLlmSettings(bare, {}, {})).toEqual({
      ok: false,
      missing: ['LLM_BASE_URL (or base_url in llm.json)', 'LLM_MODEL (or model in llm.json)'],
    });
  });

  it("lets the skill's llm.json win over the worker's settings", () => {
    const resolved = resolveLlmSettings(
      worker,
      {
        model: 'big-model',
        temperature: 0.2,
        max_tokens: 500,
        structured_output: 'none',
        max_retries: 0,
      },
      {},
    );
    expect(resolved).toEqual({
      ok: true,
      settings: {
        baseUrl: 'https://llm.example.com/v1',
        apiKey: 'sk-worker',
        apiKeySource: 'LLM_API_KEY',
        model: 'big-model',
        temperature: 0.2,
        maxTokens: 500,
        structuredOutput: 'none',
        maxRetries: 0,
      },
    });
  });

  it('reads the key from the variable the skill names', () => {
    const resolved = resolveLlmSettings(worker, { api_key_env: 'REVIEW_KEY' }, { REVIEW_KEY: 'sk-review' });
    expect(resolved).toMatchObject({
      ok: true,
      settings: { apiKey: 'sk-review', apiKeySource: 'REVIEW_KEY' },
    });
  });

  it('names an api_key_env variable that is unset or empty', () => {
    expect(resolveLlmSettings(worker, { api_key_env: 'REVIEW_KEY' }, {})).toEqual({
      ok: false,
      missing: ['REVIEW_KEY'],
    });
    expect(resolveLlmSettings(worker, { api_key_env: 'REVIEW_KEY' }, { REVIEW_KEY: '' })).toEqual({
      ok: false,
      missing: ['REVIEW_KEY'],
    });
  });

  it('needs no key (Ollama)', () => {
    const local: LlmDefaults = { ...worker, baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined };
    const resolved = resolveLlmSettings(local, {}, {});
    expect(resolved.ok && resolved.settings.apiKey).toBeUndefined();
  });

  it("never sends the worker's key to another provider a skill names", () => {
    const resolved = resolveLlmSettings(worker, { base_url: 'https://other.example.org/v1' }, {});
    expect(resolved).toMatchObject({ ok: true, settings: { baseUrl: 'https://other.example.org/v1' } });
    expect(resolved.ok && resolved.settings.apiKey).toBeUndefined();

    const samePlace = resolveLlmSettings(worker, { base_url: 'https://llm.example.com/v2' }, {});
    expect(samePlace.ok && samePlace.settings.apiKey).toBe('sk-worker');
  });
});

describe('LlmSkillSettings', () => {
  const validator = new SchemaValidator(LlmSkillSettings, 'llm.json');

  it('accepts a complete llm.json', () => {
    const settings = {
      model: 'm',
      base_url: 'http://127.0.0.1:11434/v1',
      api_key_env: 'OLLAMA_KEY',
      temperature: 2,
      max_tokens: 1,
      structured_output: 'json_object',
      max_retries: 10,
    };
    expect(validator.parse(settings)).toEqual(settings);
  });

  it.each([
    ['an API key itself', { api_key: 'sk-1' }],
    ['a base URL that is not http(s)', { base_url: 'ftp://example.com' }],
    ['a lower-case variable name', { api_key_env: 'my_key' }],
    ['a temperature above 2', { temperature: 2.5 }],
    ['max_tokens of 0', { max_tokens: 0 }],
    ['an unknown structured_output', { structured_output: 'xml' }],
    ['more than 10 retries', { max_retries: 11 }],
  ])('refuses %s', (_what, settings) => {
    expect(() => validator.parse(settings)).toThrow(/Invalid llm.json/);
  });
});
