import type { ErrorBody } from '@skillrun/core';
import type { RedisTarget } from '@skillrun/core/data';
import type { SkillContext, SkillLogLevel } from '@skillrun/skill';
import type { StreamLimits } from '../streaming/stream-budget';

/** Where skills' ctx.memory lives: the same for every run, so given to a thread once, when it starts. */
export interface MemoryTarget {
  target: RedisTarget;
  prefix: string;
  /** REDIS_LIVENESS_MS: the thread's connection leaves a Redis that stopped answering, as the worker's do. */
  livenessMs: number;
}

/** What a sandbox thread is given when it starts. */
export interface ThreadData {
  memory: MemoryTarget;
  /** How much each run may stream (ctx.emit). */
  stream: StreamLimits;
  /** Buffers outside the heap the thread may hold (the heap's own limit is Node's resourceLimits). */
  offHeapLimitBytes: number;
}

/** What a skill run is given: its module, input and facts, wherever it runs (thread or in-process). */
export interface SkillTask {
  /** A compiled ES module exporting execute(input, ctx). */
  module: string;
  input: Record<string, unknown>;
  /** The run's facts, passed to the skill as they are. */
  meta: Pick<
    SkillContext,
    'executionId' | 'skillId' | 'skillVersion' | 'traceId' | 'caller' | 'attempt' | 'deadline'
  >;
  /** The execution's metadata as it was launched (context.metadata), where ctx.metadata begins. */
  metadata?: Record<string, unknown>;
  /** A composite's: the skills it may invoke, and what its invocations so far answered, in order. */
  composite?: { calls: string[]; answered: AnsweredCall[] };
}

/** A `ctx.invoke` the composite made: the step to start. */
export interface CallRequest {
  step: string;
  skill: string;
  version?: string;
  inputs: Record<string, unknown>;
  /** ctx.invoke's `concurrencyKey`. */
  concurrencyKey?: string;
}

export type AnsweredCall = { step: string; skill: string } & (
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
);

export type SkillOutcome =
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
  /** The composite awaits invocations not answered yet: start them, and replay it when they end. */
  | { ok: false; calls: CallRequest[] };

/**
 * What the skill reports while it runs; `chunk`: one it streamed (ctx.emit), as JSON; `metadata`:
 * the execution's metadata once the skill changed it (ctx.metadata), the whole object as JSON.
 */
export type SkillEvent =
  | { type: 'progress'; value: number }
  | { type: 'metadata'; json: string }
  | { type: 'chunk'; json: string }
  | { type: 'log'; level: SkillLogLevel; message: string; fields?: Record<string, unknown> };

/** Why a running skill's signal aborts: its deadline, or a cancel of its execution. */
export type AbortCode = 'EXECUTION_TIMEOUT' | 'EXECUTION_CANCELED';

/**
 * What crosses a thread's port: JSON text, which Node copies several times faster than the object
 * graphs its structured clone walks (a no-op execution's messages cost the worker's main thread
 * ~10% of its time as objects). Everything in them is JSON already: inputs, outputs (the thread
 * refuses any other), error bodies; a log line's fields that JSON cannot say are replaced.
 */
export function encodeMessages<T>(messages: T): string {
  return JSON.stringify(messages);
}

export function decodeMessages<T>(text: string): T {
  return JSON.parse(text) as T;
}

/**
 * Worker → thread, over the thread's one port (each thread runs many tasks at once, told apart by
 * `id`).
 */
export type ThreadCommand =
  | { type: 'run'; tasks: { id: number; task: SkillTask }[] }
  | { type: 'abort'; id: number; code: AbortCode; reason: string };

/**
 * Thread → worker, over the same port (posted in arrays, a turn of the thread's loop each), so that
 * a task's outcome arrives after every event it sent.
 */
export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'over-memory'; bytes: number }
  | { type: 'event'; id: number; event: SkillEvent }
  | { type: 'outcome'; id: number; outcome: SkillOutcome };
