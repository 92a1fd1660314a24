/**
 * The one write that moves an execution record: the script (transition.lua), the call that runs it
 * (built apart, so that a caller may send it inside a script of its own, as the worker does with
 * BullMQ's completion of the job) and what its reply means.
 */
import TRANSITION_LUA from './transition.lua';

export { TRANSITION_LUA };

/** What a transition did: applied, found no record, or refused a move backwards or out of an end. */
export type TransitionResult = 'applied' | 'missing' | 'refused';

/** A transition's keys and arguments (TRANSITION_LUA), ready to be sent. */
export interface TransitionCall {
  keys: string[];
  args: string[];
}

/** The meaning of TRANSITION_LUA's reply. */
export function transitionResult(reply: number): TransitionResult {
  return reply === 1 ? 'applied' : reply === 0 ? 'missing' : 'refused';
}
