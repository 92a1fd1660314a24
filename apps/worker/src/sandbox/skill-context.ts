import { SkillError } from '@skillrun/core';
import type { MemoryStore } from '@skillrun/core/data';
import type { InvokeOptions, SkillContext, SkillLogLevel } from '@skillrun/skill';
import type { StreamBudget } from '../streaming/stream-budget';
import type { SkillEvent, SkillTask } from './messages';
import { skillMetadata } from './skill-metadata';

/** What ctx.emit needs: the run's budget, and whether a composite is replaying (its chunks were sent). */
export interface EmitScope {
  budget: StreamBudget;
  replaying(): boolean;
}

/** Builds a skill's ctx; its logs, progress, metadata and chunks go to `send` (to the worker, if in a thread). */
export function createSkillContext(
  task: SkillTask,
  send: (event: SkillEvent) => void,
  signal: AbortSignal,
  memory: () => MemoryStore,
  invoke: (skill: string, inputs: Record<string, unknown>, options?: InvokeOptions) => Promise<unknown>,
  emitScope: EmitScope,
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
    metadata: skillMetadata(task.metadata, send),
    emit: (chunk) => {
      if (emitScope.replaying()) return;
      const json = chunkJson(chunk);
      const refused = emitScope.budget.take(json);
      if (refused) throw refused;
      send({ type: 'chunk', json });
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

/** A chunk as JSON; a value JSON cannot say (undefined, a function, a BigInt, a cycle) is refused. */
function chunkJson(chunk: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(chunk);
  } catch (error) {
    throw new SkillError('INVALID_OUTPUT', `ctx.emit takes a JSON value: ${(error as Error).message}`);
  }
  if (json === undefined)
    throw new SkillError('INVALID_OUTPUT', `ctx.emit takes a JSON value, not ${typeof chunk}`);
  return json;
}
