import { Validator } from '@seriousme/openapi-schema-validator';
import { AUDIT_ACTIONS } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { AUDITED_ACTS } from '../../apps/gateway/src/audit/audited-acts';
import { loadGatewayConfig } from '../../apps/gateway/src/config';
import { gatewaySlices } from '../../apps/gateway/src/gateway-parts';
import { createApp } from '../../apps/gateway/src/http/app';
import { openApiDocument } from '../../apps/gateway/src/http/openapi-document';

type Json = Record<string, unknown>;

// Routes are registered when the slices are built; none of these stand-ins is called, and the
// connection, which scripts are defined on, never connects.
const redis = new Redis({ lazyConnect: true });
const slices = gatewaySlices({
  config: loadGatewayConfig({ PUBLIC_BASE_URL: 'http://localhost:3000', QUEUE_DASHBOARD: 'false' }),
  keys: new RedisKeys('test'),
  redis,
  queues: { webhooks: () => ({}), schedules: () => ({}) },
  descriptors: { defaults: { auth: { type: 'none' } } },
  registry: {},
  logger: {},
} as never);
const document = openApiDocument('http://localhost:3000', slices);
/** What is mounted ahead of the routes (the audit's recorder): it matches routes, it serves none. */
const ahead = new Set<unknown>(slices.flatMap((slice) => slice.before ?? []).map((mount) => mount.router));
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Express route parameters as the document names them. */
const PARAMETER_NAMES: Record<string, string> = {
  skillId: 'skill_id',
  executionId: 'execution_id',
  version: 'version',
  keyId: 'key_id',
  token: 'token',
  webhookId: 'webhook_id',
  deliveryId: 'delivery_id',
  batchId: 'batch_id',
  scheduleId: 'schedule_id',
  caller: 'caller',
};

/** What Express 5's router keeps per `use` or route: the parts this test reads. */
interface Layer {
  name: string;
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/**
 * Every `METHOD /path` the app's routes serve, in OpenAPI form, and every middleware mounted at a
 * path of its own (not at `/`), such as Swagger UI's `/docs`: directly, or as a router of no routes.
 */
function servedBy(stack: Layer[], prefix = ''): { routes: string[]; mounts: string[] } {
  const routes: string[] = [];
  const mounts: string[] = [];
  for (const layer of stack) {
    if (ahead.has(layer.handle)) continue;
    const at = layer.rawPath === undefined || layer.rawPath === '/' ? prefix : `${prefix}${layer.rawPath}`;
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(
        /:(\w+)/g,
        (_match, name: string) => `{${PARAMETER_NAMES[name] ?? `unmapped:${name}`}}`,
      );
      for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${path}`);
    } else if (layer.handle.stack) {
      const nested = servedBy(layer.handle.stack, at);
      routes.push(...nested.routes);
      mounts.push(...nested.mounts);
      if (nested.routes.length === 0 && at !== prefix) mounts.push(at);
    } else if (at !== prefix) {
      mounts.push(at);
    }
  }
  return { routes, mounts: [...new Set(mounts)] };
}

function documentedOperations(): string[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Every value in the document, with its JSON Pointer. */
function* walk(value: unknown, pointer = ''): Generator<[string, unknown]> {
  yield [pointer, value];
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      yield* walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    }
  }
}

/** The value a local `$ref` (`#/a/b`) points at, or undefined. */
function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object' && Object.hasOwn(node, key)
          ? (node as Json)[key]
          : undefined,
      document,
    );
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route the gateway serves, and none that it does not', () => {
    const app = createApp(
      {
        metrics: {},
        logger: {},
        baseUrl: 'http://localhost:3000',
        bodyLimitBytes: 1024,
        maxJsonDepth: 64,
      } as never,
      slices,
    );
    const { routes, mounts } = servedBy((app as unknown as { router: { stack: Layer[] } }).router.stack);
    // Swagger UI and the console are middleware mounted at /docs and /console (a page and its
    // assets); the document names each page.
    // A2A's HTTP+JSON binding is @a2a-js/sdk's router mounted at /a2a/rest; the document names its operations.
    // The JSON-RPC endpoints' error handler (their refusals in JSON-RPC) is mounted at each one's
    // path; the document names /mcp and /a2a.
    expect(mounts).toEqual(['/console', '/a2a/rest', '/mcp', '/a2a', '/docs']);
    const a2aRest = documentedOperations().filter((operation) => operation.includes(' /a2a/rest/'));
    const served = [...routes, 'GET /docs', 'GET /console', ...a2aRest];
    expect(new Set(served).size, 'a route is registered twice').toBe(served.length);
    expect(documentedOperations().sort()).toEqual(served.sort());
  });

  it('names an operation for every administrative act the audit log records', () => {
    const operations = documentedOperations();
    expect(ahead.size).toBe(1);
    for (const act of AUDITED_ACTS) expect(operations).toContain(`${act.method.toUpperCase()} ${act.path}`);
    // Each action the log's schema names is one endpoint's, and no two endpoints share one.
    expect(AUDITED_ACTS.map((act) => act.action).sort()).toEqual([...AUDIT_ACTIONS].sort());
  });

  it('declares every path parameter its path names, and no other', () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      const named = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.includes(key))) {
        const parameters = [
          ...((item.parameters as Json[] | undefined) ?? []),
          ...(((item[method] as Json).parameters as Json[] | undefined) ?? []),
        ];
        const declared = parameters.filter((parameter) => parameter.in === 'path').map((each) => each.name);
        expect(declared.sort(), `${method.toUpperCase()} ${path}`).toEqual(named.sort());
      }
    }
  });

  it('answers every error with the ErrorEnvelope schema (in a JSON-RPC error response on /mcp and /a2a)', () => {
    const envelope = '#/components/schemas/ErrorEnvelope';
    const jsonRpc = '#/components/schemas/JsonRpcErrorResponse';
    let errors = 0;
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.includes(key))) {
        const responses = (item[method] as { responses: Record<string, Json> }).responses;
        for (const [status, declared] of Object.entries(responses)) {
          if (!/^[45]/.test(status) && status !== 'default') continue;
          errors++;
          const response = (typeof declared.$ref === 'string' ? resolve(declared.$ref) : declared) as Json;
          const content = response?.content as Record<string, { schema?: Json }> | undefined;
          expect(Object.keys(content ?? {}), `${method} ${path} ${status}`).toEqual(['application/json']);
          expect(content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual({
            $ref: path === '/mcp' || path === '/a2a' ? jsonRpc : envelope,
          });
        }
      }
    }
    expect(errors).toBeGreaterThan(0);
    expect(resolve(envelope)).toMatchObject({ type: 'object', required: ['error'] });
    expect(resolve(`${jsonRpc}/properties/error/properties/data`)).toEqual(resolve(envelope));
  });

  it("publishes an invocation's delayed start: context.delay_ms or run_at (a closed context), and scheduled_for", () => {
    const invoke = (document.paths as Record<string, Record<string, Json>>)['/skills/{skill_id}/invoke']
      ?.post;
    expect(invoke?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/InvocationRequest' } } },
    });
    expect(invoke?.responses).toHaveProperty('400');
    expect(resolve('#/components/schemas/InvocationRequest/properties/context')).toMatchObject({
      additionalProperties: false,
      properties: {
        delay_ms: { type: 'integer', minimum: 0 },
        run_at: { type: 'string', format: 'date-time' },
      },
    });
    expect(
      resolve('#/components/schemas/Execution/properties/timestamps/properties/scheduled_for'),
    ).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('has no $ref that does not resolve', () => {
    const refs = [...walk(document)].filter(
      ([pointer, value]) => pointer.endsWith('/$ref') && typeof value === 'string',
    ) as [string, string][];
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(([, ref]) => resolve(ref) === undefined);
    expect(dangling).toEqual([]);
  });
});
