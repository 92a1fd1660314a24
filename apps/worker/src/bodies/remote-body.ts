import { type JobPayload, type SkillDescriptor, SkillError, toErrorBody } from '@skillrun/core';
import type { ExecutionStore } from '@skillrun/core/data';
import type { ProviderAnswer, RemoteProvider } from '../remote/remote-provider';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

export interface RemoteBodyDeps {
  provider: RemoteProvider;
  store: ExecutionStore;
}

/** Polls after the first wait this long, doubling to POLL_MAX_MS, unless the provider says when. */
const POLL_FIRST_MS = 200;
const POLL_MAX_MS = 5000;
/** Polls in a row that may fail (the provider unreachable) before the attempt fails. */
const POLL_FAILURES = 4;

/**
 * A skill registered from elsewhere: the worker invokes its provider and follows the provider's
 * execution to its end. Between polls the job is parked (no slot held), and where the call stands
 * (the provider's execution id, failed polls in a row) is in the record, so a worker that takes
 * the job over, or the next poll, goes on from there without invoking the provider twice in one
 * attempt. A retry invokes it afresh.
 */
export class RemoteBody implements SkillBody {
  readonly resumes = 'when-due';
  readonly countsStarts = true;
  readonly handsIn = false;

  constructor(private readonly deps: RemoteBodyDeps) {}

  async run(attempt: Attempt): Promise<BodyOutcome> {
    const { skill, payload, number, startedAt, deadline, input } = attempt;
    const { signal } = attempt.cancel;
    if (skill.body.kind !== 'remote') throw new Error(`${skill.definition.name} is not a remote skill`);
    const { descriptor } = skill.body;
    const { store, provider } = this.deps;
    const id = payload.execution_id;
    const state = await store.remote.state(id);
    const calling = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, deadline - Date.now()))]);
    const ongoing = state.attempt === number && state.executionId ? state.executionId : undefined;
    let answer: ProviderAnswer;
    try {
      answer = ongoing
        ? await provider.poll(descriptor, ongoing, calling)
        : await provider.invoke(descriptor, {
            inputs: input,
            caller: payload.caller,
            traceId: payload.trace_id,
            timeoutMs: deadline - Date.now(),
            signal: calling,
          });
    } catch (error) {
      if (signal.aborted) {
        if (ongoing) await provider.cancel(descriptor, ongoing, AbortSignal.timeout(2000));
        return { ok: false, canceled: true };
      }
      if (Date.now() >= deadline) return { ok: false, timedOut: true };
      const body = toErrorBody(error, 'FETCH_FAILED');
      // While following an execution, an unreachable provider is asked again, a few times.
      if (!ongoing || body.code !== 'FETCH_FAILED' || state.failures + 1 >= POLL_FAILURES) {
        return {
          ok: false,
          error: ongoing && body.code === 'FETCH_FAILED' ? stoppedAnswering(descriptor, body) : body,
        };
      }
      const next = {
        attempt: number,
        executionId: ongoing,
        polls: state.polls + 1,
        failures: state.failures + 1,
      };
      await store.remote.set(id, next, startedAt);
      return { waiting: true, until: Math.min(deadline, Date.now() + backoff(next.failures)) };
    }
    if (answer.ended)
      return 'output' in answer ? { ok: true, output: answer.output } : { ok: false, error: answer.error };
    const polls = ongoing ? state.polls + 1 : 0;
    await store.remote.set(
      id,
      { attempt: number, executionId: answer.executionId, polls, failures: 0 },
      startedAt,
    );
    // The provider's Retry-After, within reason; else exponential backoff from POLL_FIRST_MS.
    const wait = Math.min(answer.retryAfterMs ?? backoff(polls), POLL_MAX_MS * 6);
    return { waiting: true, until: Math.min(deadline, Date.now() + wait) };
  }

  /** Canceled here while the provider runs it: the provider is asked to cancel (where it says how). */
  async abandon(payload: JobPayload, skill: LoadedSkill): Promise<void> {
    if (skill.body.kind !== 'remote') return;
    const state = await this.deps.store.remote.state(payload.execution_id);
    if (state.executionId) {
      await this.deps.provider.cancel(skill.body.descriptor, state.executionId, AbortSignal.timeout(5000));
    }
  }
}

/** The wait before poll n + 1 (initial delay × 2^n, capped). */
function backoff(polls: number): number {
  return Math.min(POLL_MAX_MS, POLL_FIRST_MS * 2 ** polls);
}

function stoppedAnswering(descriptor: SkillDescriptor, last: { message: string }) {
  return new SkillError(
    'FETCH_FAILED',
    `The provider of ${descriptor.id} stopped answering while its execution ran (${POLL_FAILURES} polls failed in a row; the last: ${last.message})`,
  ).toBody();
}
