import { pathToFileURL } from 'node:url';
import { SkillError, toErrorBody } from '@skillrun/core';
import { createRedis, MemoryStore, RedisKeys, RedisLiveness } from '@skillrun/core/data';
import type { SkillContext } from '@skillrun/skill';
import type { Redis } from 'ioredis';
import { StreamBudget, type StreamLimits } from '../streaming/stream-budget';
import { CompositeCalls, notComposite } from './composite-calls';
import type { MemoryTarget, SkillEvent, SkillOutcome, SkillTask } from './messages';
import { createSkillContext } from './skill-context';

type Execute = (input: Record<string, unknown>, ctx: SkillContext) => unknown;

/**
 * Runs skill modules where it is loaded: in a sandbox thread, or in the worker's own thread for
 * skills isolated `in-process`. Each module is imported once per place and reused.
 */
export class SkillRunner {
  private readonly modules = new Map<string, Promise<Execute>>();
  private redis: Redis | undefined;

  constructor(
    private readonly memory: MemoryTarget,
    private readonly stream: StreamLimits,
  ) {}

  async run(task: SkillTask, send: (event: SkillEvent) => void, signal: AbortSignal): Promise<SkillOutcome> {
    const budget = new StreamBudget(this.stream);
    try {
      const execute = await this.load(task.module);
      // Aborted while its module loaded: the skill never starts (a listener added now would never fire).
      signal.throwIfAborted();
      // Only a composite's run can be suspended on its calls.
      const calls = task.composite && new CompositeCalls(task.composite);
      const ctx = createSkillContext(
        task,
        send,
        signal,
        () => this.memoryOf(task),
        calls ? calls.invoke : notComposite,
        { budget, replaying: () => calls?.replaying ?? false },
      );
      const ran = Promise.resolve(execute(task.input, ctx)).then(
        (output): SkillOutcome => ({ ok: true, output: asJson(output) }),
      );
      const outcome = calls
        ? await Promise.race([
            ran,
            calls.suspended.then((requests): SkillOutcome => ({ ok: false, calls: requests })),
          ])
        : await ran;
      return overBudget(budget) ?? outcome;
    } catch (error) {
      return overBudget(budget) ?? { ok: false, error: toErrorBody(error, 'TOOL_EXECUTION_FAILED') };
    }
  }

  close(): void {
    this.redis?.disconnect();
  }

  private load(module: string): Promise<Execute> {
    let loading = this.modules.get(module);
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
      loading.catch(() => this.modules.delete(module));
      this.modules.set(module, loading);
    }
    return loading;
  }

  /** ctx.memory: one Redis connection per place, opened the first time a skill there uses it. */
  private memoryOf(task: SkillTask): MemoryStore {
    const { target, livenessMs } = this.memory;
    // The worker says when Redis stops answering: the thread's connection only leaves it.
    this.redis ??= createRedis(target, {
      role: 'queue',
      liveness: new RedisLiveness({ intervalMs: livenessMs, target }),
    });
    return new MemoryStore(this.redis, new RedisKeys(this.memory.prefix), task.meta.caller.id);
  }
}

/** Over a bound of its stream, a run fails so, whether or not the skill caught what ctx.emit threw. */
function overBudget(budget: StreamBudget): SkillOutcome | undefined {
  return budget.exceeded && { ok: false, error: budget.exceeded.toBody() };
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
