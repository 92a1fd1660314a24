import type { InvocationAccepted, SkillDescriptor } from './protocol.js';

/** An invocation the provider accepted: where to read it, from the skill's descriptor. */
export interface ExecutionHandle {
  executionId: string;
  skillId: string;
  /** The status of the 202 answer (`accepted`). */
  status: string;
  descriptor: SkillDescriptor;
  statusUrl: string;
  resultUrl: string;
  /** From the descriptor's `endpoint.x-cancel_url`, when it has one. */
  cancelUrl?: string;
  /** From the descriptor's `endpoint.x-events_url`, when it has one. */
  eventsUrl?: string;
  /** The 202 body. */
  accepted: InvocationAccepted;
  /** The invocation joined the execution its `context.debounce` key had open (`Debounced: true`). */
  debounced?: true;
}

/** An execution to read: a handle, or a skill id and execution id (the descriptor is fetched). */
export type ExecutionRef = ExecutionHandle | { skillId: string; executionId: string; version?: string };
