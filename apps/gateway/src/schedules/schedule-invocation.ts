import type { Invocation } from '../invocations/invocation-service';
import type { StoredSchedule } from './schedule-store';

/** What each run of a schedule invokes, and as which caller. */
export type ScheduleDefinition = Pick<
  StoredSchedule,
  'skill_id' | 'version' | 'inputs' | 'context' | 'caller'
>;

/** A schedule's run as an invocation: the body POST invoke would be sent. */
export function invocationOf(
  definition: ScheduleDefinition,
): Pick<Invocation, 'skillId' | 'body' | 'versionQuery'> {
  const { skill_id, version, inputs, context, caller } = definition;
  return {
    skillId: skill_id,
    body: {
      caller,
      skill_id,
      ...(version === undefined ? {} : { version }),
      inputs,
      ...(context === undefined ? {} : { context }),
    },
    versionQuery: undefined,
  };
}
