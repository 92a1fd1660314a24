/**
 * Whether this process exports traces: when an OTLP endpoint is named (the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off. Otherwise nothing of the
 * SDK is loaded and every span is the API's no-op.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim());
  return Boolean(endpoint) && !disabled && !exporters.includes('none');
}
