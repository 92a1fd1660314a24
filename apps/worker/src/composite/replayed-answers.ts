import type { AnsweredCall } from '../sandbox/messages';
import type { CompositeRun } from './composite-run';
import { LOST_STEP, stepFailed } from './step-failure';

/**
 * The replay of a composite written as code: what each step this attempt launched answered, in
 * order, for its `ctx.invoke` calls to be answered from when it runs again (Temporal-style); or the
 * wait, if one still runs.
 */
export async function replayedAnswers(run: CompositeRun): Promise<AnsweredCall[] | { waiting: true }> {
  const answered: AnsweredCall[] = [];
  for (const entry of run.current) {
    if (!('execution_id' in entry)) continue;
    const call = { step: entry.step, skill: entry.skill_id };
    const state = await run.stateOf(entry);
    if (state.state === 'completed') {
      answered.push({ ...call, ok: true, output: state.output });
      continue;
    }
    if (state.state === 'running') {
      const parked = await run.wait();
      if (parked && 'waiting' in parked) return parked;
    }
    const cause = state.state === 'failed' ? state.execution.error : LOST_STEP;
    answered.push({ ...call, ok: false, error: stepFailed(entry.step, entry.skill_id, cause, entry) });
  }
  return answered;
}
