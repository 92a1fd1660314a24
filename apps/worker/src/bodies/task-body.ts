import type { TaskStore } from '@skillrun/core/data';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

/**
 * A task waits for a person or an agent: its execution is listed among the open tasks and its job
 * parked (no worker slot held) until its deadline. Someone hands it in through the gateway, which
 * ends the execution and promotes the job so that BullMQ ends it too; otherwise the job comes back
 * at the deadline and the attempt times out (the runner sees the deadline has passed).
 */
export class TaskBody implements SkillBody {
  readonly resumes = 'when-due';
  readonly countsStarts = true;
  readonly handsIn = true;

  constructor(private readonly tasks: TaskStore) {}

  async run({ payload, skill, deadline }: Attempt): Promise<BodyOutcome> {
    if (skill.body.kind !== 'task') throw new Error(`${skill.definition.name} is not a task`);
    // Ended meanwhile (canceled): nothing to wait for; the runner finds the record final.
    if (!(await this.tasks.open(payload.execution_id, skill.definition.name, deadline))) {
      return { ok: false, canceled: true };
    }
    return { waiting: true, until: deadline };
  }
}
