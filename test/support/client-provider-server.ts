import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body?: Record<string, unknown>;
}

export interface ProviderServer {
  url: string;
  /** The descriptor's own URL (an absolute URL to hand to `describe`). */
  descriptorUrl: string;
  key: string;
  /** The same skill behind OAuth 2 (client credentials at /oauth/token). */
  oauthDescriptorUrl: string;
  oauthClient: { clientId: string; clientSecret: string };
  /** Access tokens issued so far. */
  tokensIssued: number;
  requests: ProviderRequest[];
  /** Scripted refusals the next invocations get, in order, before one is accepted. */
  refuseNextInvocations(...answers: Array<'unavailable' | 'timeout'>): void;
  close(): Promise<void>;
}

interface ProviderExecution {
  id: string;
  name: string;
  /** Whether it ends `timeout` (the first run of a name that starts with `slow`). */
  timesOut: boolean;
  reads: number;
  created: string;
}

/**
 * A second provider that is not skillrun: a few lines of spec 000/001 on node:http, for the
 * client's tests. One skill, `greet`, behind its own key header (X-Provider-Key); no events URL,
 * no cancel, no long-poll: its status says `running` twice (Retry-After: 0), then `completed`
 * without the output, which only its result carries (spec 001's three steps). Its status_url is
 * spec 001's base form (`{status_url}/{execution_id}`), its result_url a template. A name `fail`
 * fails with the provider's own error code; the first execution of a name that starts with `slow`
 * ends `timeout` with spec 001's retry hints. Idempotency-Key repeats answer the same execution.
 */
export async function startProviderServer(): Promise<ProviderServer> {
  const key = `provider-${randomUUID()}`;
  const requests: ProviderRequest[] = [];
  const refusals: Array<'unavailable' | 'timeout'> = [];
  const executions = new Map<string, ProviderExecution>();
  const byIdempotencyKey = new Map<string, string>();
  const slowNames = new Set<string>();
  let origin = '';
  const oauthClient = { clientId: 'greeter-app', clientSecret: `secret-${randomUUID()}` };
  const tokens = new Set<string>();

  const descriptor = () => ({
    protocol: { version: '1.0.0' },
    id: 'org.example.greet',
    name: 'Greet',
    version: '2.1.0',
    capability_type: 'api',
    description: 'Greets someone, slowly.',
    provider: { name: 'Example Org', url: origin },
    endpoint: {
      url: `${origin}/api/greet`,
      method: 'POST',
      content_type: 'application/json',
      status_url: `${origin}/api/executions`,
      result_url: `${origin}/api/executions/{execution_id}/result`,
      timeout_ms: 10_000,
      retry: { max_attempts: 3, backoff_ms: 10 },
    },
    inputs: [{ name: 'name', type: 'string', required: true }],
    output: { content_type: 'application/json', schema: { type: 'object' } },
    auth: { type: 'api_key', header: 'X-Provider-Key', description: 'Ask Example Org for a key.' },
    access: 'restricted',
  });
  const oauthDescriptor = () => ({
    ...descriptor(),
    auth: {
      type: 'oauth2',
      oauth2: {
        authorization_url: `${origin}/oauth/authorize`,
        token_url: `${origin}/oauth/token`,
        scopes: { 'skill:invoke': 'Invoke skills', 'skill:read': 'Read executions' },
      },
    },
  });

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const execution = (found: ProviderExecution, withOutcome: boolean) => {
    const done = found.reads > 2;
    const failed = found.name === 'fail';
    if (done && found.timesOut) {
      return {
        execution_id: found.id,
        status: 'timeout',
        skill_id: 'org.example.greet',
        error: {
          code: 'EXECUTION_TIMEOUT',
          message: 'Skill execution exceeded the configured timeout of 10000ms',
          retry: { suggested_delay_ms: 5, max_attempts: 3 },
        },
        timestamps: { created_at: found.created, updated_at: new Date().toISOString() },
      };
    }
    return {
      execution_id: found.id,
      status: done ? (failed ? 'failed' : 'completed') : 'running',
      skill_id: 'org.example.greet',
      ...(done && withOutcome && !failed ? { output: { greeting: `Hello, ${found.name}!` } } : {}),
      ...(done && failed
        ? { error: { code: 'GREETING_FAILED', message: 'Nobody is called fail', recoverable: false } }
        : {}),
      timestamps: { created_at: found.created, updated_at: new Date().toISOString() },
    };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body?: Record<string, unknown>) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    requests.push({ method: req.method ?? '', path, headers: req.headers, ...(body ? { body } : {}) });
    if (req.method === 'GET' && path === '/descriptors/greet') return send(res, 200, descriptor());
    if (req.method === 'GET' && path === '/descriptors/greet-oauth') return send(res, 200, oauthDescriptor());
    if (req.method === 'POST' && path === '/oauth/token') {
      const basic = Buffer.from(`${oauthClient.clientId}:${oauthClient.clientSecret}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}` || body?.grant_type !== 'client_credentials') {
        return send(res, 401, { error: 'invalid_client', error_description: 'Unknown client' });
      }
      const token = `token-${randomUUID()}`;
      tokens.add(token);
      server.tokensIssued++;
      return send(res, 200, {
        access_token: token,
        token_type: 'Bearer',
        expires_in: 3600,
        scope: body.scope,
      });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (req.headers['x-provider-key'] !== key && !(bearer && tokens.has(bearer))) {
      return send(res, 401, {
        error: {
          code: 'AUTH_REQUIRED',
          message: 'Authentication is required to invoke this skill',
          details: { required_auth_type: 'api_key' },
        },
      });
    }
    if (req.method === 'POST' && path === '/api/greet') {
      const refusal = refusals.shift();
      if (refusal === 'unavailable') {
        return send(res, 503, { error: { code: 'BUSY', message: 'Try again' } }, { 'retry-after': '0' });
      }
      if (refusal === 'timeout') {
        return send(res, 504, {
          error: {
            code: 'EXECUTION_TIMEOUT',
            message: 'Skill execution exceeded the configured timeout of 10000ms',
            retry: { suggested_delay_ms: 10, max_attempts: 3 },
          },
        });
      }
      const idempotencyKey = String(req.headers['idempotency-key'] ?? randomUUID());
      let id = byIdempotencyKey.get(idempotencyKey);
      if (!id) {
        id = randomUUID();
        byIdempotencyKey.set(idempotencyKey, id);
        const name = String((body?.inputs as { name?: unknown } | undefined)?.name);
        const timesOut = name.startsWith('slow') && !slowNames.has(name);
        slowNames.add(name);
        executions.set(id, { id, name, timesOut, reads: 0, created: new Date().toISOString() });
      }
      return send(res, 202, { execution_id: id, status: 'accepted', skill_id: 'org.example.greet' });
    }
    const status = /^\/api\/executions\/([^/]+)$/.exec(path);
    const result = /^\/api\/executions\/([^/]+)\/result$/.exec(path);
    const found = executions.get(decodeURIComponent((status ?? result)?.[1] ?? ''));
    if (req.method === 'GET' && found) {
      if (status) found.reads++;
      const answer = execution(found, Boolean(result));
      return send(res, 200, answer, answer.status === 'running' ? { 'retry-after': '0' } : {});
    }
    return send(res, 404, { error: { code: 'NOT_FOUND', message: `No ${req.method} ${path}` } });
  };

  const httpServer: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
      const parsed = form
        ? Object.fromEntries(new URLSearchParams(text))
        : text
          ? JSON.parse(text)
          : undefined;
      handle(req, res, parsed as Record<string, unknown> | undefined);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const server: ProviderServer = {
    url: origin,
    descriptorUrl: `${origin}/descriptors/greet`,
    oauthDescriptorUrl: `${origin}/descriptors/greet-oauth`,
    oauthClient,
    tokensIssued: 0,
    key,
    requests,
    refuseNextInvocations: (...answers) => refusals.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
  return server;
}
