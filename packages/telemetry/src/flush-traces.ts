import { type ProxyTracerProvider, trace } from '@opentelemetry/api';

interface Flushable {
  forceFlush(): Promise<void>;
}

/** How long a stopping process waits for its last spans to reach the collector. */
const FLUSH_DEADLINE_MS = 2000;

/**
 * Exports the spans still buffered (the batch processor sends every few seconds), so that a process
 * that stops does not lose its last requests' traces; bounded, and a no-op without tracing.
 */
export async function flushTraces(): Promise<void> {
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate?.() as Partial<Flushable>;
  if (typeof provider?.forceFlush !== 'function') return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_DEADLINE_MS);
  });
  await Promise.race([provider.forceFlush().catch(() => {}), deadline]);
  clearTimeout(timer);
}
