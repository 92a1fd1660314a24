/**
 * Marks, for the whole process, that tracing started. The start runs from a bundle of its own
 * (`node --import`), whose module state the services' bundle does not share: a global symbol does,
 * as the OpenTelemetry API keeps its own globals.
 */
const STARTED = Symbol.for('skillrun.telemetry.tracing-started');

export function markTracingStarted(): void {
  (globalThis as Record<symbol, unknown>)[STARTED] = true;
}

/** Whether this process traces: its spans are exported, and contexts worth carrying between processes. */
export function tracingStarted(): boolean {
  return (globalThis as Record<symbol, unknown>)[STARTED] === true;
}
