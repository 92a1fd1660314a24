export type { DurabilityOptions } from './durable-writes';
export { type EngineParts, engineOf } from './engine-of';
export {
  ExecutionEngine,
  type ExecutionEngineOptions,
  type StatusMoves,
  type StepPlace,
} from './execution-engine';
export { ExecutionIds } from './execution-ids';
export { ExecutionLauncher } from './execution-launcher';
export { type PlacementNeeds, placeExecution } from './execution-placement';
export { launchInputs } from './launch-inputs';
export type { InvocationOrigin, LaunchOrigin } from './launch-origin';
export type { DebouncedLaunch, LaunchOutcome, LaunchRequest } from './launch-request';
export type { ReadSession } from './read-session';
export { ReplicaAck, type ReplicaAckOptions } from './replica-ack';
export { type RunIds, runExecutionId } from './schedule-run-ids';
