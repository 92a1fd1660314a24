import {
  type ErrorBody,
  type Execution,
  isTerminalStatus,
  type Principal,
  type SkillDefinition,
  SkillError,
  type SkillSchemas,
  type TaskLink,
  type TaskListPage,
  type TaskListQuery,
  type TaskView,
} from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore, SkillRegistry, TaskStore } from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import { isAdmin, principalOf } from '../auth/identity';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import type { RequestHeaders } from '../http/request-headers';
import type { LinkClaims, TaskLinks } from './task-links';
import { taskView } from './task-view';

export interface TaskDeskDeps {
  store: ExecutionStore;
  tasks: TaskStore;
  /** What hands a task in, confirmed on the replicas (ACK_REPLICAS), and builds the end it writes. */
  engine: Pick<ExecutionEngine, 'handIn' | 'transitions'>;
  registry: SkillRegistry;
  schemas: SkillSchemas;
  identities: Identities;
  links: TaskLinks;
  baseUrl: string;
}

/** Who hands a task in: a caller with credentials, or the holder of a one-time link (for its issuer). */
type Hand = { principal: Principal } | { link: LinkClaims };

/** An open task and what it needs: its execution and its skill's definition. */
interface OpenTask {
  execution: Execution;
  definition: SkillDefinition;
}

/** How many open tasks one listing looks at, at most, before it answers what it found. */
const SCAN_BUDGET = 1000;
const READ_CHUNK = 100;

/**
 * The work of `task` skills, for the people and agents who do it: the open tasks each caller may
 * take, claiming one, handing it in (its output validated against the skill's output schema) or
 * declining it, by credentials or by a one-time link. A link acts for the caller who issued it: it
 * is not issued while another caller holds the task, and another's claim holds it back as it would
 * hold back its issuer. Claiming and handing in are each decided by one script in Redis against the
 * record as it is then (of two at once, one wins and the other gets 409, whichever they are);
 * handing in ends the execution like any other end, then promotes its parked job so that BullMQ
 * ends it too and a composite waiting for it goes on.
 */
export class TaskDesk {
  constructor(private readonly deps: TaskDeskDeps) {}

  async list(query: TaskListQuery, headers: RequestHeaders): Promise<TaskListPage> {
    const principal = await this.principal(headers);
    const found: TaskView[] = [];
    let after = query.cursor === undefined ? undefined : afterOf(query.cursor);
    let exhausted = false;
    for (let looked = 0; looked < SCAN_BUDGET && found.length < query.limit; looked += READ_CHUNK) {
      const entries = await this.deps.tasks.list(query.skill_id, after, READ_CHUNK);
      for (const entry of entries) {
        after = entry;
        // Ended or gone since it was listed: it is leaving the list.
        const task = await this.openTask(entry.id).catch(() => undefined);
        if (task && mayTake(task.definition, principal)) found.push(await this.view(task));
        if (found.length === query.limit) break;
      }
      if (entries.length < READ_CHUNK && after === entries.at(-1)) {
        exhausted = true;
        break;
      }
    }
    return { tasks: found, next_cursor: exhausted || after === undefined ? null : encodeCursor(after) };
  }

  async get(executionId: string, headers: RequestHeaders): Promise<TaskView> {
    const task = await this.assignedTask(executionId, await this.principal(headers));
    return this.view(task);
  }

  async claim(executionId: string, headers: RequestHeaders): Promise<TaskView> {
    const principal = await this.principal(headers);
    await this.assignedTask(executionId, principal);
    const claimed = await this.deps.tasks.claim(executionId, principal.callerId);
    if (claimed === 'claimed-by-another') throw await this.claimedByAnother(executionId);
    if (claimed === 'not-open') throw ended(executionId, 'claimed');
    return this.view(await this.openTask(executionId));
  }

  async complete(executionId: string, output: unknown, headers: RequestHeaders): Promise<Execution> {
    const principal = await this.principal(headers);
    const task = await this.assignedTask(executionId, principal);
    return this.handIn(task, { principal }, { output });
  }

  async decline(executionId: string, reason: string, headers: RequestHeaders): Promise<Execution> {
    const principal = await this.principal(headers);
    const task = await this.assignedTask(executionId, principal);
    return this.handIn(task, { principal }, { reason });
  }

  /**
   * A one-time link that completes the task without credentials, for whoever the caller sends it to,
   * on the caller's behalf: 409 TASK_CLAIMED while another caller holds the task.
   */
  async link(executionId: string, headers: RequestHeaders): Promise<TaskLink> {
    const principal = await this.principal(headers);
    const task = await this.assignedTask(executionId, principal);
    const holder = task.execution.task?.claimed_by;
    if (holder !== undefined && holder !== principal.callerId) throw await this.claimedByAnother(executionId);
    const { token, expiresAt } = await this.deps.links.issue(
      executionId,
      task.execution.attempts,
      principal.callerId,
    );
    return { url: `${this.deps.baseUrl}/tasks/link/${token}`, expires_at: new Date(expiresAt).toISOString() };
  }

  async getByLink(token: string): Promise<TaskView> {
    const { executionId } = await this.deps.links.verify(token);
    return this.view(await this.openTask(executionId));
  }

  async completeByLink(token: string, output: unknown): Promise<Execution> {
    const link = await this.deps.links.verify(token);
    const task = await this.openTask(link.executionId);
    if (task.execution.attempts !== link.attempt) throw ended(link.executionId, 'completed');
    return this.handIn(task, { link }, { output });
  }

  private async handIn(
    { execution, definition }: OpenTask,
    hand: Hand,
    outcome: { output: unknown } | { reason: string },
  ): Promise<Execution> {
    const { store, engine } = this.deps;
    const by = 'principal' in hand ? hand.principal.callerId : `link:${hand.link.tokenId}`;
    const outputJson = 'output' in outcome ? this.checkedOutput(definition, outcome.output) : undefined;
    const end = {
      attempt: Math.max(execution.attempts, 1),
      startedAt: Date.parse(execution.timestamps.started_at ?? execution.timestamps.created_at),
      workerId: by,
    };
    const id = execution.execution_id;
    const written = await engine.handIn(
      execution,
      outputJson !== undefined
        ? engine.transitions.completeCall(id, outputJson, end)
        : engine.transitions.failCall(
            id,
            'failed',
            declined(by, 'reason' in outcome ? outcome.reason : ''),
            end,
          ),
      // A link is held back by another's claim as its issuer would be.
      'principal' in hand ? by : hand.link.callerId,
    );
    if (written === 'missing') throw notFound(id);
    if (written === 'claimed-by-another') throw await this.claimedByAnother(id);
    if (written === 'refused') throw ended(id, 'output' in outcome ? 'completed' : 'declined');
    const after = await store.records.get(id);
    if (!after) throw notFound(id);
    return after;
  }

  /** The output as JSON once it matches the skill's output schema; 400 naming each violation if not. */
  private checkedOutput(definition: SkillDefinition, output: unknown): string {
    const checked = this.deps.schemas.validate(definition.output, output, '/output');
    if (!checked.ok) {
      throw new SkillError('INVALID_INPUT', "The output does not match the task's output schema", {
        details: checked.violations,
      });
    }
    // Bounded like any request body (BODY_LIMIT_BYTES).
    return JSON.stringify(checked.value ?? null);
  }

  /** TASK_CLAIMED, naming the holder: a claim, once made, stays with its caller, so a read now names it. */
  private async claimedByAnother(executionId: string): Promise<SkillError> {
    const execution = await this.deps.store.records.get(executionId);
    return new SkillError('TASK_CLAIMED', `Task "${executionId}" is claimed by another caller`, {
      details: { claimed_by: execution?.task?.claimed_by },
    });
  }

  private async principal(headers: RequestHeaders): Promise<Principal> {
    const principal = principalOf(await this.deps.identities.of(headers));
    if (!principal) throw new SkillError('AUTH_REQUIRED', 'Tasks are for authenticated callers');
    return principal;
  }

  /** An open task the caller may take: 404 for any other (one they may not take is not theirs to see). */
  private async assignedTask(executionId: string, principal: Principal): Promise<OpenTask> {
    const task = await this.openTask(executionId);
    if (!mayTake(task.definition, principal)) throw notFound(executionId);
    return task;
  }

  private async openTask(executionId: string): Promise<OpenTask> {
    const execution = await this.deps.store.records.get(executionId);
    if (!execution) throw notFound(executionId);
    const versions = await this.deps.registry.versions(execution.skill_id);
    const entry = versions.find((version) => version.version === execution.skill_version);
    if (entry?.source !== 'hosted' || entry.definition.mode !== 'task') throw notFound(executionId);
    if (isTerminalStatus(execution.status)) throw ended(executionId, 'handed in');
    if (!execution.task) throw new SkillError('EXECUTION_NOT_FOUND', `Task "${executionId}" is not open yet`);
    return { execution, definition: entry.definition };
  }

  private async view({ execution, definition }: OpenTask): Promise<TaskView> {
    const inputs = await this.deps.store.records.inputsOf(execution.execution_id);
    return taskView(execution, definition, inputs ?? {}, this.deps.baseUrl);
  }
}

function mayTake(definition: SkillDefinition, principal: Principal): boolean {
  const assignees = definition.task?.assignees;
  return isAdmin(principal) || assignees === undefined || assignees.includes(principal.callerId);
}

function declined(by: string, reason: string): ErrorBody {
  const message = `Declined by ${by}${reason ? `: ${reason}` : ''}`.slice(0, 1000);
  return new SkillError('TASK_DECLINED', message, { recoverable: false }).toBody();
}

function notFound(executionId: string): SkillError {
  return new SkillError('EXECUTION_NOT_FOUND', `No task "${executionId}" for this caller`);
}

function ended(executionId: string, what: string): SkillError {
  return new SkillError(
    'EXECUTION_ENDED',
    `Task "${executionId}" has ended already (it cannot be ${what}); nothing was changed`,
  );
}

function afterOf(cursor: string): { score: number; id: string } {
  return decodeCursor(cursor, ({ score, id }) =>
    typeof score === 'number' && typeof id === 'string' ? { score, id } : undefined,
  );
}
