import { pathToFileURL } from 'node:url';
import type { MessagePort } from 'node:worker_threads';
import type { SkillContext } from '@skillrun/core';
import { createRedis, MemoryStore, RedisKeys, SkillError, toErrorBody } from '@skillrun/core';
import type { Redis } from 'ioredis';
import { CompositeCalls } from './composite-calls';
import type { ThreadMessage, ThreadOutcome, ThreadTask, WorkerCommand } from './messages';
import { createSkillContext } from './skill-context';

/**
 * Runs inside a worker thread, so that a skill that blocks its event loop (even forever) blocks
 * only this thread: the worker can still declare the timeout and terminate the thread.
 */
type Execute = (input: Record<string, unknown>, ctx: SkillContext) => unknown;

const modules = new Map<string, Promise<Execute>>();
let redis: Redis | undefined;

function loadExecute(module: string): Promise<Execute> {
  let loading = modules.get(module);
  if (!loading) {
    loading = import(pathToFileURL(module).href).then(
      (exports: { execute?: unknown; default?: { execute?: unknown } }) => {
        const execute = exports.execute ?? exports.default?.execute;
        if (typeof execute !== 'function') {
          throw new SkillError('TOOL_NOT_AVAILABLE', `${module} does not export a function named execute`, {
            recoverable: false,
          });
        }
        return execute as Execute;
      },
    );
    loading.catch(() => modules.delete(module));
    modules.set(module, loading);
  }
  return loading;
}

function memoryFor(task: ThreadTask): () => MemoryStore {
  return () => {
    redis ??= createRedis(task.redis.target, { role: 'queue' });
    return new MemoryStore(redis, new RedisKeys(task.redis.prefix), task.meta.caller.id);
  };
}

/** Output crosses to the store as JSON; anything JSON cannot say is refused here, clearly. */
function asJson(output: unknown): unknown {
  if (output === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(output));
  } catch (error) {
    throw new SkillError(
      'INVALID_OUTPUT',
      `The skill returned output that is not JSON: ${(error as Error).message}`,
    );
  }
}

export default async function runSkill(task: ThreadTask): Promise<void> {
  const { port } = task;
  const controller = new AbortController();
  port.on('message', (command: WorkerCommand) => {
    if (command.type === 'abort') controller.abort(new SkillError('EXECUTION_TIMEOUT', command.reason));
  });
  const outcome = await execute(task, port, controller.signal);
  port.postMessage({ type: 'outcome', outcome } satisfies ThreadMessage);
  port.close();
}

async function execute(task: ThreadTask, port: MessagePort, signal: AbortSignal): Promise<ThreadOutcome> {
  try {
    const run = await loadExecute(task.module);
    const calls = new CompositeCalls(task.composite);
    const ctx = createSkillContext(task, port, signal, memoryFor(task), calls.invoke);
    const ran = Promise.resolve(run(task.input, ctx)).then(
      (output): ThreadOutcome => ({ ok: true, output: asJson(output) }),
    );
    return await Promise.race([
      ran,
      calls.suspended.then((requests): ThreadOutcome => ({ ok: false, calls: requests })),
    ]);
  } catch (error) {
    return { ok: false, error: toErrorBody(error, 'TOOL_EXECUTION_FAILED') };
  }
}
