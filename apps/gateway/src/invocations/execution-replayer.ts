import {
  type BulkReplayRequest,
  type BulkReplayResult,
  type Execution,
  ReplayRequest,
  SchemaValidator,
  SkillError,
  toErrorBody,
} from '@skillrun/core';
import type { ExecutionStore } from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import type { ExecutionHistory } from '../executions/execution-history';
import { readable } from '../executions/readable-execution';
import { knownErrorOf } from '../http/known-error';
import type { RequestHeaders } from '../http/request-headers';
import { idempotencyKeyOf } from '../idempotency/idempotency-key-header';
import type { InvocationOutcome, InvocationService } from './invocation-service';
import type { ReplayFork } from './replay-fork';

export interface ExecutionReplayerDeps {
  store: ExecutionStore;
  identities: Identities;
  invocations: InvocationService;
  history: ExecutionHistory;
  /** Where a composite's replay reruns from (`from_step`), and what it reuses. */
  fork: ReplayFork;
}

export interface Replay {
  skillId: string;
  executionId: string;
  body: unknown;
  headers: RequestHeaders;
  address: string;
}

const replayValidator = new SchemaValidator(ReplayRequest, 'replay request');

/**
 * Runs an execution again as a new one linked to it (`replay_of`), Inngest's and Trigger.dev's
 * answer to a dead-letter queue: with its inputs (kept in its record) or edited ones, its priority
 * and its concurrency key, validated, authorized, limited and recorded like any invocation, as the
 * caller who asks for the replay. In bulk, every execution a history filter finds, a page at a time.
 * A composite's replay may rerun from a step, reusing the steps before it (ReplayFork).
 */
export class ExecutionReplayer {
  constructor(private readonly deps: ExecutionReplayerDeps) {}

  async replay({ skillId, executionId, body, headers, address }: Replay): Promise<InvocationOutcome> {
    try {
      const changes = replayValidator.parse(body ?? {});
      const [record, identity] = await Promise.all([
        this.deps.store.records.read(executionId),
        this.deps.identities.of(headers),
      ]);
      const original = readable(record, skillId, executionId, principalOf(identity));
      return await this.replayOf(original, changes, headers, address);
    } catch (refused) {
      return { headers: {}, refused };
    }
  }

  /**
   * Replays every execution the filter finds on one page of the history (of those the caller may
   * see); each composite from `from_step`, or from the step it failed at.
   */
  async replayAll(
    { from_step, ...query }: BulkReplayRequest,
    headers: RequestHeaders,
    address: string,
  ): Promise<BulkReplayResult> {
    const page = await this.deps.history.list(query, headers);
    const replays: BulkReplayResult['replays'] = [];
    for (const original of page.executions) {
      const changes = from_step === undefined ? {} : { from_step };
      const outcome = await this.replayOf(original, changes, headers, address).catch(
        (refused: unknown): InvocationOutcome => ({ headers: {}, refused }),
      );
      if ('accepted' in outcome) {
        replays.push({
          replay_of: original.execution_id,
          execution_id: outcome.accepted.execution.execution_id,
        });
      } else {
        const { code, message } = toErrorBody(
          knownErrorOf(outcome.refused) ?? outcome.refused,
          'INTERNAL_ERROR',
        );
        replays.push({ replay_of: original.execution_id, error: { code, message } });
      }
    }
    return { replays, next_cursor: page.next_cursor };
  }

  private async replayOf(
    original: Pick<
      Execution,
      | 'execution_id'
      | 'skill_id'
      | 'status'
      | 'error'
      | 'caller'
      | 'priority'
      | 'requested_version'
      | 'tags'
      | 'metadata'
    >,
    changes: ReplayRequest,
    headers: RequestHeaders,
    address: string,
  ): Promise<InvocationOutcome> {
    const inputs = changes.inputs ?? (await this.deps.store.records.inputsOf(original.execution_id));
    if (inputs === null) {
      throw new SkillError('INVALID_INPUT', 'The inputs of this execution were not kept: send them', {
        details: [{ path: '/inputs', message: 'required to replay this execution' }],
      });
    }
    // Gated as the original was (skill.json `concurrency`), in the same key's line.
    const concurrencyKey = await this.deps.store.records.concurrencyKeyOf(original.execution_id);
    const principal = principalOf(await this.deps.identities.of(headers));
    const version = changes.version ?? original.requested_version;
    const fork = await this.deps.fork.of({
      original,
      fromStep: changes.from_step,
      editedInputs: changes.inputs !== undefined,
      inputs,
      range: version,
    });
    const idempotencyKey = idempotencyKeyOf(headers);
    return this.deps.invocations.invoke({
      skillId: original.skill_id,
      body: {
        // The replay is the replaying caller's execution.
        caller: { id: principal?.callerId ?? original.caller.id, type: original.caller.type },
        skill_id: original.skill_id,
        ...(version === undefined ? {} : { version }),
        inputs,
        context: {
          priority: original.priority,
          ...(concurrencyKey === undefined ? {} : { concurrency_key: concurrencyKey }),
          // Found by the same tags and metadata as the execution it replays (Trigger.dev's replay).
          ...(original.tags === undefined ? {} : { tags: original.tags }),
          ...(original.metadata === undefined ? {} : { metadata: original.metadata }),
        },
      },
      headers,
      versionQuery: undefined,
      address,
      origin: { kind: 'replay', replayOf: original.execution_id, ...(fork ? { fork } : {}) },
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
  }
}
