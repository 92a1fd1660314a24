// Run before main.mjs with `node --import` (package.json's start scripts): starts tracing when an
// OTLP endpoint is configured, before the modules it instruments load.
import { startTracing } from '@skillrun/telemetry/start';

await startTracing('skillrun');
