import { SpanKind } from '@opentelemetry/api';
import { inSpan, SkillError } from '@skillrun/core';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ResolvedLlmSettings } from './llm-settings';
import { collectStream } from './streamed-completion';

export interface LlmUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** What a call may spend of a budget, held while it runs and given back (with its usage) after. */
export interface BudgetHold {
  /** The completion tokens the call may write; none: no cap beyond the skill's own. */
  maxTokens?: number;
  release(usage: LlmUsage | undefined): Promise<void>;
}

export type LlmValidation =
  | { ok: true; value: unknown }
  | { ok: false; violations: { path: string; message: string }[] };

export interface LlmRequest {
  skillId: string;
  settings: ResolvedLlmSettings;
  systemPrompt: string;
  input: Record<string, unknown>;
  outputSchema: object;
  validate(output: unknown): LlmValidation;
  signal: AbortSignal;
  /** Called for every response that reports usage, including answers that are then rejected. */
  onUsage(usage: LlmUsage): void;
  /**
   * Given, the answers are streamed (`stream: true`) and each piece of their text is handed here as
   * it arrives: a repair round's after the first answer's.
   */
  onDelta?(text: string): void;
  /**
   * Given (an execution with a budget), each call holds its share first, its prompt's tokens
   * estimated: the call is capped at what it holds, or not made when it throws (BUDGET_EXCEEDED).
   */
  hold?(promptTokens: number): Promise<BudgetHold>;
}

interface Answer {
  content: string | null;
  finishReason: string;
}

/** The SDK insists on a key; providers that need none (Ollama) ignore whatever is sent. */
const NO_KEY = 'none';
const MAX_PROVIDER_MESSAGE_CHARS = 300;

/**
 * Asks an OpenAI-compatible chat-completions API for one JSON value that matches a skill's output
 * schema, with one repair round when the answer does not parse or validate; streamed when the
 * caller wants the text as it comes. HTTP retries (429,
 * 5xx, Retry-After) are the SDK's; what is left of a failure becomes a SkillError.
 */
export class LlmClient {
  /** One SDK client (and so one connection pool) per provider, key and retry budget. */
  private readonly clients = new Map<string, OpenAI>();

  async complete(request: LlmRequest): Promise<unknown> {
    const messages = openingMessages(request);
    const first = await this.ask(request, messages);
    const firstCheck = checkAnswer(first, request.validate);
    if (firstCheck.ok) return firstCheck.value;

    const second = await this.ask(request, [
      ...messages,
      { role: 'assistant', content: first.content ?? '' },
      { role: 'user', content: repairPrompt(firstCheck.violations) },
    ]);
    const secondCheck = checkAnswer(second, request.validate);
    if (secondCheck.ok) return secondCheck.value;
    const { violations } = secondCheck;
    throw new SkillError(
      'INVALID_OUTPUT',
      `The model's answer did not match the output schema after one repair round: ${listProblems(violations, '; ')}`,
      { details: violations, recoverable: false },
    );
  }

  /**
   * One chat completion, in a span named and described as OpenTelemetry's GenAI conventions say;
   * with a budget, capped at what it holds of it, which it gives back with what it spent.
   */
  private async ask(request: LlmRequest, messages: ChatCompletionMessageParam[]): Promise<Answer> {
    const hold = await request.hold?.(estimatedTokens(messages));
    let usage: LlmUsage | undefined;
    try {
      const capped = cappedRequest(request, hold?.maxTokens);
      const { model } = capped.settings;
      const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model };
      return await inSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const response = capped.onDelta
          ? await this.streamed(capped, messages, capped.onDelta)
          : await this.completion(capped, messages);
        span.setAttribute('gen_ai.response.model', response.model || model);
        if (response.usage) {
          const { prompt_tokens, completion_tokens } = response.usage;
          span.setAttributes({
            'gen_ai.usage.input_tokens': prompt_tokens,
            'gen_ai.usage.output_tokens': completion_tokens,
          });
          usage = { model: response.model || model, prompt_tokens, completion_tokens };
          capped.onUsage(usage);
        }
        return answerOf(response);
      });
    } finally {
      await hold?.release(usage);
    }
  }

  private async completion(
    request: LlmRequest,
    messages: ChatCompletionMessageParam[],
  ): Promise<OpenAI.ChatCompletion> {
    const { settings, signal } = request;
    try {
      const pending = this.clientFor(settings).chat.completions.create(requestBody(request, messages), {
        signal,
      });
      return await untilAborted(pending, signal);
    } catch (error) {
      throw signal.aborted ? abortError(signal) : providerError(error, settings);
    }
  }

  /** One chat completion streamed: its text handed to `onDelta` as it comes, then the whole of it. */
  private async streamed(
    request: LlmRequest,
    messages: ChatCompletionMessageParam[],
    onDelta: (text: string) => void,
  ): Promise<OpenAI.ChatCompletion> {
    const { settings, signal } = request;
    const read = async () => {
      const chunks = await this.clientFor(settings).chat.completions.create(
        { ...requestBody(request, messages), stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      return collectStream(chunks, onDelta);
    };
    try {
      return await untilAborted(read(), signal);
    } catch (error) {
      throw signal.aborted ? abortError(signal) : providerError(error, settings);
    }
  }

  private clientFor(settings: ResolvedLlmSettings): OpenAI {
    const { baseUrl, apiKey = NO_KEY, maxRetries } = settings;
    const key = JSON.stringify([baseUrl, apiKey, maxRetries]);
    let client = this.clients.get(key);
    if (!client) {
      // Null organization and project: the worker's OPENAI_* variables are not this provider's.
      client = new OpenAI({ baseURL: baseUrl, apiKey, maxRetries, organization: null, project: null });
      this.clients.set(key, client);
    }
    return client;
  }
}

/** The request with its max_tokens lowered to a budget's cap, if that is lower. */
function cappedRequest(request: LlmRequest, cap: number | undefined): LlmRequest {
  if (cap === undefined) return request;
  const { maxTokens } = request.settings;
  const lowest = maxTokens === undefined ? cap : Math.min(maxTokens, cap);
  return { ...request, settings: { ...request.settings, maxTokens: lowest } };
}

/**
 * The prompt's tokens before the provider counts them: about four characters a token, rounded up,
 * plus a few for each message's framing. An estimate: the provider's count is what is spent.
 */
function estimatedTokens(messages: ChatCompletionMessageParam[]): number {
  const MESSAGE_OVERHEAD = 4;
  return messages.reduce((sum, message) => {
    const text =
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
    return sum + Math.ceil(text.length / 4) + MESSAGE_OVERHEAD;
  }, 0);
}

/** The answer of a completion's first choice, or the error its absence or a refusal is. */
function answerOf(response: OpenAI.ChatCompletion): Answer {
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  if (!choice) {
    throw new SkillError('LLM_PROVIDER_ERROR', 'The LLM provider answered without a choice', {
      recoverable: true,
    });
  }
  const refusal = choice.message?.refusal;
  if (refusal || choice.finish_reason === 'content_filter') {
    const why = refusal || 'its answer was withheld by the content filter';
    throw new SkillError('LLM_REFUSED', `The model refused: ${why}`, { recoverable: false });
  }
  return { content: choice.message?.content ?? null, finishReason: choice.finish_reason };
}

function openingMessages(request: LlmRequest): ChatCompletionMessageParam[] {
  const instruction = [
    'Answer with exactly one JSON value that matches this JSON Schema, and nothing else:',
    JSON.stringify(request.outputSchema),
  ].join('\n');
  return [
    { role: 'system', content: `${request.systemPrompt.trimEnd()}\n\n${instruction}` },
    { role: 'user', content: JSON.stringify(request.input) },
  ];
}

function requestBody(
  request: LlmRequest,
  messages: ChatCompletionMessageParam[],
): ChatCompletionCreateParamsNonStreaming {
  const { model, temperature, maxTokens } = request.settings;
  return {
    model,
    messages,
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...responseFormat(request),
  };
}

function responseFormat(
  request: LlmRequest,
): Pick<ChatCompletionCreateParamsNonStreaming, 'response_format'> {
  switch (request.settings.structuredOutput) {
    case 'json_schema':
      return {
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: schemaName(request.skillId),
            schema: request.outputSchema as Record<string, unknown>,
            strict: false,
          },
        },
      };
    case 'json_object':
      return { response_format: { type: 'json_object' } };
    case 'none':
      return {};
  }
}

/** OpenAI accepts `^[a-zA-Z0-9_-]{1,64}$` as a schema's name. */
function schemaName(skillId: string): string {
  return skillId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'output';
}

function checkAnswer(answer: Answer, validate: LlmRequest['validate']): LlmValidation {
  const parsed = parseAnswer(answer);
  if ('problem' in parsed) return { ok: false, violations: [{ path: '/', message: parsed.problem }] };
  return validate(parsed.value);
}

function parseAnswer(answer: Answer): { value: unknown } | { problem: string } {
  const text = withoutFence(answer.content ?? '');
  if (!text) return { problem: 'the answer was empty; it must be one JSON value' };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const cut = answer.finishReason === 'length' ? ' (it was cut off at max_tokens)' : '';
    return { problem: `the answer is not valid JSON${cut}: ${(error as Error).message}` };
  }
}

/** Models asked for JSON still like to wrap it in a Markdown fence. */
function withoutFence(content: string): string {
  const trimmed = content.trim();
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  return (fenced?.[1] ?? trimmed).trim();
}

function repairPrompt(violations: { path: string; message: string }[]): string {
  return [
    'Your answer cannot be used:',
    listProblems(violations, '\n'),
    'Reply with the corrected JSON value only, with no other text.',
  ].join('\n');
}

function listProblems(violations: { path: string; message: string }[], separator: string): string {
  return violations.map(({ path, message }) => `- ${path}: ${message}`).join(separator);
}

/**
 * The SDK cancels the HTTP request when the signal aborts, but sleeps between retries (Retry-After
 * may say minutes) without listening to it: the race ends the call at once either way.
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new SkillError('EXECUTION_TIMEOUT', 'The LLM call was cancelled before the model answered');
}

/** What is left after the SDK's retries, as a SkillError that never shows the key. */
function providerError(error: unknown, settings: ResolvedLlmSettings): unknown {
  if (!(error instanceof APIError)) return error;
  const provider = `The LLM provider at ${endpointOf(settings.baseUrl)}`;
  const said = providerMessage(error, settings.apiKey);
  const attempts = `${settings.maxRetries + 1} attempt${settings.maxRetries === 0 ? '' : 's'}`;
  const status = error.status;
  if (error instanceof APIConnectionError || status === undefined) {
    return new SkillError(
      'LLM_PROVIDER_ERROR',
      `${provider} could not be reached after ${attempts}: ${said}`,
      {
        recoverable: true,
      },
    );
  }
  if (status === 401 || status === 403) {
    return new SkillError(
      'TOOL_NOT_AVAILABLE',
      `${provider} refused the API key (${status}); check ${settings.apiKeySource}`,
      { recoverable: false },
    );
  }
  if (status === 404) {
    return new SkillError(
      'TOOL_NOT_AVAILABLE',
      `${provider} has no model "${settings.model}" or no chat-completions endpoint (404): ${said}`,
      { recoverable: false },
    );
  }
  // The statuses the SDK itself retries are transient; any other 4xx will fail the same way again.
  const transient = status === 408 || status === 409 || status === 429 || status >= 500;
  const after = transient ? ` after ${attempts}` : '';
  return new SkillError('LLM_PROVIDER_ERROR', `${provider} answered ${status}${after}: ${said}`, {
    recoverable: transient,
  });
}

/** The base URL without credentials or query, which may carry secrets. */
function endpointOf(baseUrl: string): string {
  if (!URL.canParse(baseUrl)) return 'the configured base URL';
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname}`;
}

/** The provider's own words, bounded, without the status the SDK prefixes and without the key. */
function providerMessage(error: APIError, apiKey: string | undefined): string {
  const message = error.message.replace(/^\d{3} /, '');
  const redacted = apiKey ? message.split(apiKey).join('***') : message;
  return redacted.length > MAX_PROVIDER_MESSAGE_CHARS
    ? `${redacted.slice(0, MAX_PROVIDER_MESSAGE_CHARS)}…`
    : redacted;
}
