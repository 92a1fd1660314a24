/**
 * The one write that moves an execution record: the script (transition.lua), the call that runs it
 * (built apart, so that a caller may send it inside a script of its own, as the worker does with
 * BullMQ's completion of the job), what its reply means, and the step an end's reply may leave.
 */
import type { Redis } from 'ioredis';
import TRANSITION_LUA from './transition.lua';

export { TRANSITION_LUA };

/** What a transition did: applied, found no record, or refused a move backwards or out of an end. */
export type TransitionResult = 'applied' | 'missing' | 'refused';

/** A transition's keys and arguments (TRANSITION_LUA), ready to be sent. */
export interface TransitionCall {
  /** The execution it moves. */
  executionId: string;
  keys: string[];
  args: string[];
}

/**
 * TRANSITION_LUA's reply: 1, 0 or -1; or, of an end that left the execution in sets on another hash
 * tag than its record's, 1 followed by those sets.
 */
export type TransitionReply = number | [number, ...string[]];

/**
 * What a transition's reply means, once the sets an end left are left too: the execution is
 * removed from each of them here, the second step of its end (a script reaches its record's slot
 * alone; docs/design/sharding.md, slice 8). A second step that fails (Redis away, or this process
 * gone in between) does not fail the end, which is written: the slot it holds in a quota is freed
 * by the next take that finds the quota full (InFlightSlots' repair).
 */
export async function transitionSettled(
  redis: Redis,
  executionId: string,
  reply: TransitionReply,
): Promise<TransitionResult> {
  if (typeof reply === 'number') return transitionResult(reply);
  const [code, ...sets] = reply;
  // One command per set: each may be on a slot of its own.
  await Promise.all(sets.map((set) => redis.zrem(set, executionId))).catch(() => {});
  return transitionResult(code);
}

/** The meaning of TRANSITION_LUA's result code. */
export function transitionResult(code: number): TransitionResult {
  return code === 1 ? 'applied' : code === 0 ? 'missing' : 'refused';
}
