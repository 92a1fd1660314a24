// What the services themselves use; the SDK starts from '@skillrun/telemetry/start', a bundle of
// its own loaded with `node --import`, so that nothing here loads the SDK.
export { flushTraces } from './flush-traces';
export { queueTelemetry } from './queue-telemetry';
export { tracingStarted } from './tracing-started';
