import type { MessagePort } from 'node:worker_threads';
import type { InvokeOptions, MemoryStore, SkillContext, SkillLogLevel } from '@skillrun/core';
import type { ThreadEvent, ThreadTask } from './messages';

/** Builds a skill's ctx inside its thread; logs and progress travel to the worker over `port`. */
export function createSkillContext(
  task: ThreadTask,
  port: MessagePort,
  signal: AbortSignal,
  memory: () => MemoryStore,
  invoke: (skill: string, inputs: Record<string, unknown>, options?: InvokeOptions) => Promise<unknown>,
): SkillContext {
  const send = (event: ThreadEvent) => port.postMessage(event);
  const log =
    (level: SkillLogLevel) =>
    (message: string, fields?: Record<string, unknown>): void =>
      send({ type: 'log', level, message: String(message), ...(fields ? { fields } : {}) });
  return {
    signal,
    ...task.meta,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    progress: (value) => {
      if (Number.isFinite(value)) send({ type: 'progress', value });
    },
    invoke: invoke as SkillContext['invoke'],
    get memory() {
      return memory();
    },
    config: {},
    session: {},
    scratch: {},
  };
}
