/** Paths whose requests are not traced: probes and scrapes, every few seconds, would bury the rest. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The SDK's tracer provider, registered as the process's global one (with the async-hooks context
 * manager and the W3C trace context propagator), and the instrumentations of the libraries on the
 * path of an execution: the HTTP server and clients, Express's routing, ioredis's commands (so a
 * slow Redis shows), and undici (fetch: LLM calls, remote providers, webhooks).
 *
 * Every package is imported here, when tracing starts, and not at the top of the module: a bundle
 * hoists static imports, and a process that does not trace must not load the SDK.
 */
export async function startTracerProvider(serviceName: string): Promise<void> {
  const [
    api,
    asyncHooks,
    core,
    exporter,
    instrumentation,
    express,
    http,
    ioredis,
    undici,
    resources,
    sdk,
    conventions,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const resource = resources
    .resourceFromAttributes({ [conventions.ATTR_SERVICE_NAME]: serviceName })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  // What the SDK's NodeTracerProvider.register() does: an execution's context follows its awaits.
  api.context.setGlobalContextManager(new asyncHooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new http.HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
      }),
      // Routers and handlers; a span for each of the middlewares every request passes would be noise.
      new express.ExpressInstrumentation({ ignoreLayersType: [express.ExpressLayerType.MIDDLEWARE] }),
      // Only commands made inside a traced operation: not the workers' polling and heartbeats.
      new ioredis.IORedisInstrumentation({ requireParentSpan: true }),
      new undici.UndiciInstrumentation(),
    ],
  });
}
