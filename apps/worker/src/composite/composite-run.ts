import type { Execution } from '@skillrun/core';
import type { ExecutionStore, StepEntry } from '@skillrun/core/data';
import type { Attempt, BodyOutcome } from '../bodies/skill-body';
import type { StepCall, StepLauncher } from './step-launcher';
import type { WaitingComposites } from './waiting-composites';

export interface CompositeDeps {
  store: ExecutionStore;
  steps: StepLauncher;
  waiting: WaitingComposites;
}

/**
 * How long a composite waits for a step launched apart before it looks again by itself: what a
 * lost wakeup costs (a step canceled on its own through a gateway, a worker gone as a step ended).
 */
const APART_RECHECK_MS = 10_000;

export type LaunchedEntry = Extract<StepEntry, { execution_id: string }>;

/** Where a launched step stands, read from its own execution record. */
export type StepState =
  | { state: 'completed'; output: unknown }
  | { state: 'failed'; execution: Execution }
  | { state: 'running' }
  /** Its record is gone (it never started, or it expired): the step has to run again. */
  | { state: 'missing' };

/**
 * One attempt of a composite, between two waits: the steps it has launched so far (a new attempt
 * starts over), how each stands, and the moves a composite makes: launch steps, skip one, wait.
 */
export class CompositeRun {
  /**
   * The steps launched apart that were read as running: one that ends before `wait` is looked at
   * again, not taken for lost (no BullMQ child tells of its end).
   */
  private readonly seenApart = new Set<string>();

  private constructor(
    private readonly deps: CompositeDeps,
    private readonly attempt: Attempt,
    private entries: StepEntry[],
  ) {}

  static async open(deps: CompositeDeps, attempt: Attempt): Promise<CompositeRun> {
    const id = attempt.payload.execution_id;
    await deps.waiting.remove(id);
    return new CompositeRun(deps, attempt, await deps.store.steps.entries(id));
  }

  /**
   * The steps of this attempt, in the order they were launched (or skipped), after those a rerun
   * from a step reuses (attempt 0): every attempt of a fork starts from where it forked.
   */
  get current(): StepEntry[] {
    return this.entries.filter((entry) => entry.attempt === 0 || entry.attempt === this.attempt.number);
  }

  latest(step: string): StepEntry | undefined {
    return this.current.findLast((entry) => entry.step === step);
  }

  async stateOf(entry: LaunchedEntry): Promise<StepState> {
    const execution = await this.deps.store.records.get(entry.execution_id);
    if (!execution) return { state: 'missing' };
    if (execution.status === 'completed') return { state: 'completed', output: execution.output };
    // A step canceled on its own (not with its composite) fails the composite like a failed one.
    if (execution.status === 'failed' || execution.status === 'timeout' || execution.status === 'canceled')
      return { state: 'failed', execution };
    if (this.deps.steps.apart(this.attempt.payload.execution_id, entry.execution_id)) {
      this.seenApart.add(entry.execution_id);
    }
    return { state: 'running' };
  }

  async skip(step: string, skill: string): Promise<void> {
    this.entries = [
      ...this.entries,
      { step, skill_id: skill, status: 'skipped', attempt: this.attempt.number },
    ];
    await this.deps.store.steps.set(this.attempt.payload.execution_id, this.entries, this.attempt.startedAt);
  }

  async launch(calls: StepCall[]): Promise<void> {
    this.entries = await this.deps.steps.launch(this.attempt, this.entries, calls);
  }

  /**
   * Parks the composite until its launched steps end: BullMQ moves its job to waiting-children,
   * which frees the worker slot. Steps launched apart (no BullMQ children, StepLauncher.apart) are
   * waited for with its job delayed, promoted by the end of one of them (StepWakeups), or after
   * APART_RECHECK_MS should that wakeup be lost. Undefined when they have all ended already (look
   * again).
   */
  async wait(): Promise<BodyOutcome | undefined> {
    const { job, token, payload, deadline } = this.attempt;
    await this.deps.waiting.add(payload.execution_id, deadline);
    if (token && (await job.moveToWaitingChildren(token))) return { waiting: true };
    const apart = await this.runningApart();
    if (apart.length > 0) {
      return {
        waiting: true,
        until: Math.min(deadline, Date.now() + APART_RECHECK_MS),
        // One that ended as the job was being parked could not promote it.
        woken: async () => (await this.runningApart()).length < apart.length,
      };
    }
    // One read as running has ended since: the composite runs again at once to read it.
    if (this.seenApart.size > 0) return { waiting: true, until: Date.now() };
    await this.deps.waiting.remove(payload.execution_id);
    return undefined;
  }

  /** The steps of this attempt launched apart from the composite that have not ended. */
  private async runningApart(): Promise<LaunchedEntry[]> {
    const id = this.attempt.payload.execution_id;
    const apart = this.current.filter(
      (entry): entry is LaunchedEntry =>
        'execution_id' in entry && this.deps.steps.apart(id, entry.execution_id),
    );
    const states = await Promise.all(apart.map((entry) => this.stateOf(entry)));
    return apart.filter((_, index) => states[index]?.state === 'running');
  }
}
