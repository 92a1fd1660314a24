// @skillrun/core/a2a: executions as A2A tasks (the task, what A2A keeps beside it, and the push
// notifications of its changes), for the gateway that serves A2A and the worker that delivers its
// push notifications. Apart from @skillrun/core, so that only they load @a2a-js/sdk.
export {
  dataPart,
  outputArtifact,
  statusesOf,
  statusTimestampOf,
  taskStateOf,
  toA2aTask,
} from './a2a/a2a-task';
export { type TaskNote, TaskRouting } from './a2a/task-note';
export { TaskNotes } from './a2a/task-notes';
export {
  NOTIFICATION_TOKEN_HEADER,
  type TaskPush,
  type TaskPushVersion,
  taskPushHeaders,
  taskPushPayload,
} from './a2a/task-push';
