import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { startTracerProvider } from './tracer-provider';
import { tracingConfigured } from './tracing-configured';
import { markTracingStarted } from './tracing-started';

/**
 * Starts OpenTelemetry tracing in this process when it is configured (see tracingConfigured), before
 * the application's modules load: it runs from `node --import <app>/dist/tracing.mjs`, because the
 * instrumentations patch http, express, ioredis and undici as they are imported. Spans go to the
 * OTLP/HTTP endpoint of the standard `OTEL_EXPORTER_OTLP_*` settings in batches
 * (`OTEL_BSP_*`), sampled per `OTEL_TRACES_SAMPLER` (parent-based, always on by default), named
 * `OTEL_SERVICE_NAME` or `serviceName`; context travels in W3C `traceparent`.
 *
 * Unconfigured, it loads nothing and every span in the code is the API's no-op. Sandbox threads
 * inherit `--import`: only the main thread traces.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!isMainThread || !tracingConfigured(env)) return;
  // Imported here, not at the top: a process that does not trace loads none of it (see tracer-provider.ts).
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  // Only the modules an instrumentation asks for are wrapped on import: every other stays as it is.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  await startTracerProvider(env.OTEL_SERVICE_NAME || serviceName);
  await waitForAllMessagesAcknowledged();
  markTracingStarted();
}
