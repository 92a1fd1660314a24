import { parseVersionRange, type SkillSchemas } from '@skillrun/core';
import {
  approvalFor,
  type ExecutionEngine,
  type ExecutionStore,
  isGated,
  launchInputs,
  newJobPayload,
  runTargetOf,
  type SkillResolver,
  type StepEntry,
} from '@skillrun/core/data';
import type { Attempt } from '../bodies/skill-body';
import { stepFailure } from './step-failure';

export interface StepLauncherDeps {
  resolver: SkillResolver;
  /** Where a step is placed (ExecutionEngine.placeStep) and launched. */
  engine: Pick<ExecutionEngine, 'placeStep' | 'apart' | 'launch'>;
  schemas: SkillSchemas;
  store: ExecutionStore;
}

export interface StepCall {
  /** The step's name: unique within one attempt of the composite. */
  step: string;
  skill: string;
  /** A version range; the latest available version when left out. */
  version?: string;
  inputs: Record<string, unknown>;
  /** Its context.concurrency_key: none unless the call gives one (not the composite's). */
  concurrencyKey?: string;
}

type LaunchedStep = Extract<StepEntry, { execution_id: string }>;

/**
 * Starts the executions of a composite's steps: each a real execution of the called skill (its own
 * id, the parent's caller, trace id, priority, tags, metadata and budget, the parent's deadline; a concurrency key only if
 * the call names one, as a Trigger.dev child task's), validated against that
 * skill's input schema, on the queue of the version resolved, and a BullMQ child of the parent's
 * job so that the parent waits for it without holding a worker slot; a gated step homed on another
 * vshard (REDIS_SHARDS above 1) is launched apart, and its end wakes the parent (StepWakeups).
 */
export class StepLauncher {
  constructor(private readonly deps: StepLauncherDeps) {}

  /** Launches the calls; `entries` are the steps so far, which the record keeps with the new ones. */
  async launch(parent: Attempt, entries: StepEntry[], calls: StepCall[]): Promise<StepEntry[]> {
    const { budget } = parent.payload;
    // Counted before any starts: over max_steps (or a spent budget), none of them does.
    if (budget && calls.length > 0) await this.deps.store.budgets.takeSteps(budget, calls.length);
    const prepared = await Promise.all(calls.map((call) => this.prepare(parent, call)));
    const all = [...entries, ...prepared.map(({ entry }) => entry)];
    // Recorded before they start: a parent that crashes here finds the step and starts it again.
    await this.deps.store.steps.set(parent.payload.execution_id, all, parent.startedAt);
    const { job } = parent;
    await Promise.all(
      prepared.map(({ launch }) => launch({ id: job.id as string, queue: job.queueQualifiedName })),
    );
    return all;
  }

  /**
   * Whether a step was launched apart from its composite (on another hash tag: no BullMQ child),
   * so that the composite waits for it parked rather than for BullMQ's children.
   */
  apart(compositeId: string, stepId: string): boolean {
    return this.deps.engine.apart(compositeId, stepId);
  }

  /** Resolves and validates a call; its failure is the step's (STEP_FAILED naming it). */
  private async prepare(parent: Attempt, call: StepCall) {
    try {
      return await this.resolve(parent, call);
    } catch (error) {
      throw stepFailure(call.step, call.skill, error);
    }
  }

  private async resolve(parent: Attempt, call: StepCall) {
    const where = `/steps/${call.step}`;
    const range =
      call.version === undefined ? undefined : parseVersionRange(call.version, `${where}/version`);
    const resolved = await this.deps.resolver.resolve(call.skill, range);
    const { entry: target } = resolved;
    // A skill registered from elsewhere is a step like any: a worker calls its provider.
    const { skill, remote } = runTargetOf(target);
    const inputs = launchInputs(this.deps.schemas, resolved, call.inputs, `${where}/input`);
    // A step is held for an approver as an invocation is: its composite waits for it meanwhile.
    const approval = approvalFor(target, inputs, Date.now());
    const { payload: parentPayload } = parent;
    const parentId = parentPayload.execution_id;
    const { engine } = this.deps;
    // A gated step launched apart from its parent, on its skill's home: its end wakes the parent (StepWakeups).
    const { executionId, apart } = engine.placeStep(
      parentId,
      skill.name,
      isGated(skill.concurrency, call.concurrencyKey),
    );
    const payload = newJobPayload(
      {
        skill_id: skill.name,
        skill_version: skill.version,
        inputs,
        caller: parentPayload.caller,
        trace_id: parentPayload.trace_id,
        priority: parentPayload.priority,
        deadline: parent.deadline,
        parent: { execution_id: parentPayload.execution_id, step: call.step },
        ...(parentPayload.owner === undefined ? {} : { owner: parentPayload.owner }),
        ...(call.concurrencyKey === undefined ? {} : { concurrency_key: call.concurrencyKey }),
        ...(parentPayload.tags === undefined ? {} : { tags: parentPayload.tags }),
        ...(parentPayload.metadata === undefined ? {} : { metadata: parentPayload.metadata }),
        ...(approval ? { approval: true as const } : {}),
        ...(parentPayload.budget === undefined ? {} : { budget: parentPayload.budget }),
        ...(parentPayload.daily_spend_of === undefined
          ? {}
          : { daily_spend_of: parentPayload.daily_spend_of }),
      },
      executionId,
    );
    const entry: LaunchedStep = {
      step: call.step,
      skill_id: skill.name,
      skill_version: skill.version,
      execution_id: payload.execution_id,
      attempt: parent.number,
    };
    const launch = (parentJob: { id: string; queue: string }) =>
      engine.launch({
        payload,
        skill,
        ...(range === undefined ? {} : { requestedVersion: range }),
        ...(remote ? { remote: true, retryBackoffMs: remote.retryBackoffMs } : {}),
        origin: apart ? { kind: 'step' } : { kind: 'step', parentJob },
        ...(approval ? { approval } : {}),
      });
    return { entry, launch };
  }
}
