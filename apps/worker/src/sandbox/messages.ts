import type { MessagePort } from 'node:worker_threads';
import type { ErrorBody, RedisTarget, SkillContext, SkillLogLevel } from '@skillrun/core';

/** What a skill thread is asked to run. */
export interface ThreadTask {
  /** A compiled ES module exporting execute(input, ctx). */
  module: string;
  input: Record<string, unknown>;
  /** The run's facts, passed to the skill as they are. */
  meta: Pick<
    SkillContext,
    'executionId' | 'skillId' | 'skillVersion' | 'traceId' | 'caller' | 'attempt' | 'deadline'
  >;
  redis: { target: RedisTarget; prefix: string };
  /** A composite's: the skills it may invoke, and what its invocations so far answered, in order. */
  composite?: { calls: string[]; answered: AnsweredCall[] };
  port: MessagePort;
}

/** A `ctx.invoke` the composite made: the step to start. */
export interface CallRequest {
  step: string;
  skill: string;
  version?: string;
  inputs: Record<string, unknown>;
}

export type AnsweredCall = { step: string; skill: string } & (
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
);

export type ThreadOutcome =
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
  /** The composite awaits invocations not answered yet: start them, and replay it when they end. */
  | { ok: false; calls: CallRequest[] };

/** Thread → worker: what the skill reports while it runs. */
export type ThreadEvent =
  | { type: 'progress'; value: number }
  | { type: 'log'; level: SkillLogLevel; message: string; fields?: Record<string, unknown> };

/** Thread → worker, over the same port so that it arrives after every event the skill sent. */
export type ThreadMessage = ThreadEvent | { type: 'outcome'; outcome: ThreadOutcome };

/** Worker → thread. */
export type WorkerCommand = { type: 'abort'; reason: string };
