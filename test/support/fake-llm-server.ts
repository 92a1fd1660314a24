import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * One scripted reply. `status` makes it an error (with `retryAfter` seconds or `retryAfterMs` as
 * headers, and `body`, default an OpenAI-style error); otherwise a completion whose content is
 * `JSON.stringify(json)` or `content`, or a `refusal`, ending with `finishReason` (default "stop").
 * A request with `stream: true` is answered as server-sent events: one `data:` chunk per piece of
 * `deltas` (by default the content in pieces of `deltaChars`, 4), `deltaPauseMs` apart, then the
 * finish, the usage if `stream_options.include_usage` asks for it, and `data: [DONE]`.
 */
export interface FakeAnswer {
  json?: unknown;
  content?: string;
  refusal?: string;
  finishReason?: 'stop' | 'length' | 'content_filter';
  status?: number;
  retryAfter?: number;
  retryAfterMs?: number;
  body?: unknown;
  /** A completion that calls these tools (finish reason `tool_calls`; `arguments` sent as JSON text). */
  toolCalls?: { name: string; arguments: unknown }[];
  /** Reply after this long; a client that disconnects first is counted in `aborted`. */
  delayMs?: number;
  /** Streamed: the content's pieces, in order (they must add up to the content). */
  deltas?: string[];
  /** Streamed without `deltas`: the length of each piece of the content. */
  deltaChars?: number;
  /** Streamed: the pause between two pieces. */
  deltaPauseMs?: number;
  usage?: Partial<FakeUsage>;
}

export interface FakeLlmRequestBody {
  model?: string;
  messages: { role: string; content: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean } };
  temperature?: number;
  max_tokens?: number;
  [field: string]: unknown;
}

export interface FakeLlmRequest {
  body: FakeLlmRequestBody;
  headers: IncomingHttpHeaders;
  /** `Date.now()` when the request arrived. */
  receivedAt: number;
  /** `Date.now()` when the reply was written; absent while it is pending or after a disconnect. */
  answeredAt?: number;
}

export interface FakeLlmOptions {
  /** The reply once the script is used up; by default a 500 saying the request was unscripted. */
  fallback?: (request: FakeLlmRequest) => FakeAnswer;
}

export interface FakeLlm {
  /** The base URL to configure (LLM_BASE_URL), ending in /v1. */
  url: string;
  /** Every chat-completions request, in arrival order. */
  requests: FakeLlmRequest[];
  /** Requests whose client disconnected before the (delayed) reply. */
  readonly aborted: number;
  /** Appends replies, consumed one per request in order. */
  script(...answers: FakeAnswer[]): void;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_USAGE: FakeUsage = { prompt_tokens: 10, completion_tokens: 5 };

const unscripted: FakeAnswer = {
  status: 500,
  body: { error: { message: 'unscripted request to the fake LLM', type: 'server_error', code: null } },
};

/**
 * A local OpenAI-compatible server speaking just POST /v1/chat/completions, with scripted replies:
 *
 *   const llm = await startFakeLlm();
 *   llm.script({ json: { summary: 'ok' } }, { status: 429, retryAfter: 1 }, { refusal: 'no' });
 *   // point LLM_BASE_URL (or an LlmClient) at llm.url, then inspect llm.requests
 *   await llm.close();
 */
export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const fallback = options.fallback ?? (() => unscripted);
  const requests: FakeLlmRequest[] = [];
  const queue: FakeAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let aborted = 0;

  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
        return;
      }
      const request: FakeLlmRequest = { body: parseBody(text), headers: req.headers, receivedAt: Date.now() };
      requests.push(request);
      const answer = queue.shift() ?? fallback(request);
      const reply = () => {
        timers.delete(timer);
        if (res.destroyed) return;
        sendAnswer(res, answer, request.body, requests.length);
        request.answeredAt = Date.now();
      };
      const timer = setTimeout(reply, answer.delayMs ?? 0);
      timers.add(timer);
      res.on('close', () => {
        if (res.writableFinished) return;
        aborted += 1;
        clearTimeout(timer);
        timers.delete(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get aborted() {
      return aborted;
    },
    script: (...answers) => {
      queue.push(...answers);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseBody(text: string): FakeLlmRequestBody {
  try {
    return JSON.parse(text) as FakeLlmRequestBody;
  } catch {
    return { messages: [], unparsable: text };
  }
}

function sendAnswer(res: ServerResponse, answer: FakeAnswer, body: FakeLlmRequestBody, serial: number): void {
  if (answer.status !== undefined) {
    const headers = {
      ...(answer.retryAfter === undefined ? {} : { 'retry-after': String(answer.retryAfter) }),
      ...(answer.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(answer.retryAfterMs) }),
    };
    const errorBody = answer.body ?? {
      error: { message: `fake error ${answer.status}`, type: 'fake_error', code: null },
    };
    send(res, answer.status, errorBody, headers);
    return;
  }
  const content = answer.json === undefined ? (answer.content ?? null) : JSON.stringify(answer.json);
  const usage = { ...DEFAULT_FAKE_USAGE, ...answer.usage };
  if (body.stream === true) {
    void sendStream(res, answer, body, serial, content, usage);
    return;
  }
  const toolCalls = answer.toolCalls?.map((call, index) => ({
    id: `call_${serial}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  send(res, 200, {
    id: `chatcmpl-fake-${serial}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: answer.refusal ?? null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls ? 'tool_calls' : (answer.finishReason ?? 'stop'),
        logprobs: null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

/** A completion as OpenAI streams it: `chat.completion.chunk`s as server-sent events. */
async function sendStream(
  res: ServerResponse,
  answer: FakeAnswer,
  body: FakeLlmRequestBody,
  serial: number,
  content: string | null,
  usage: FakeUsage,
): Promise<void> {
  const head = {
    id: `chatcmpl-fake-${serial}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake-model',
  };
  const write = (chunk: object) => {
    if (!res.destroyed) res.write(`data: ${JSON.stringify({ ...head, ...chunk })}\n\n`);
  };
  const size = answer.deltaChars ?? 4;
  const text = content ?? '';
  const deltas =
    answer.deltas ??
    Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  write({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (const delta of deltas) {
    if (answer.deltaPauseMs) await new Promise((resolve) => setTimeout(resolve, answer.deltaPauseMs));
    write({ choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] });
  }
  if (answer.refusal)
    write({ choices: [{ index: 0, delta: { refusal: answer.refusal }, finish_reason: null }] });
  write({ choices: [{ index: 0, delta: {}, finish_reason: answer.finishReason ?? 'stop' }] });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) {
    write({ choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  }
  if (!res.destroyed) res.end('data: [DONE]\n\n');
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
