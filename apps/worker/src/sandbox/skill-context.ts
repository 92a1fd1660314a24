import type { MemoryStore } from '@skillrun/core/data';
import type { InvokeOptions, SkillContext, SkillLogLevel } from '@skillrun/skill';
import type { SkillEvent, SkillTask } from './messages';

/** Builds a skill's ctx; its logs and progress go to `send` (to the worker, if in a thread). */
export function createSkillContext(
  task: SkillTask,
  send: (event: SkillEvent) => void,
  signal: AbortSignal,
  memory: () => MemoryStore,
  invoke: (skill: string, inputs: Record<string, unknown>, options?: InvokeOptions) => Promise<unknown>,
): SkillContext {
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
