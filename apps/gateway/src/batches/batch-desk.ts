import {
  type BatchAccepted,
  BatchEnvelope,
  type BatchSlot,
  type BatchView,
  type ErrorBody,
  isErrorCode,
  isTerminalStatus,
  type Logger,
  type Principal,
  SchemaValidator,
  SkillError,
  statusNotReplicated,
  toErrorBody,
} from '@skillrun/core';
import type {
  BatchStore,
  ExecutionBrief,
  ExecutionEngine,
  ExecutionStore,
  ReadSession,
  StoredBatch,
} from '@skillrun/core/data';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import { overseesAll } from '../auth/role-of';
import { assertMayCancel, type ExecutionCanceler } from '../executions/execution-canceler';
import type { ExecutionReader } from '../executions/execution-reader';
import { knownErrorOf } from '../http/known-error';
import { headerOf, type RequestHeaders } from '../http/request-headers';
import type { InvocationService, Prepared } from '../invocations/invocation-service';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { viewOf } from './batch-view';
import { itemInvocations } from './item-invocations';

export interface BatchDeskDeps {
  invocations: InvocationService;
  batches: BatchStore;
  store: ExecutionStore;
  identities: Identities;
  reader: ExecutionReader;
  canceler: ExecutionCanceler;
  metrics: GatewayMetrics;
  logger: Logger;
  /** The longest a request is kept waiting (MAX_WAIT_SECONDS), whatever it asks for. */
  maxWaitSeconds: number;
  /**
   * Where a batch is placed (its id, and its items' vshard), and whether its items' statuses may be
   * told (past `accepted`, once on the replicas: ACK_REPLICAS).
   */
  engine: Pick<ExecutionEngine, 'placeBatch' | 'readSession'>;
}

export interface BatchSubmission {
  body: unknown;
  /** The request's header fields: its credentials and its `traceparent`, every item's. */
  headers: RequestHeaders;
  /** The client's network address: what anonymous callers are counted by. */
  address: string;
}

/** A batch's view, and the wait applied before it was read (as GET status's). */
export interface BatchAnswer {
  view: BatchView;
  appliedWaitSeconds?: number;
}

const envelopeValidator = new SchemaValidator(BatchEnvelope, 'batch');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Batches (POST /batches): many invocations by one caller in one request, each validated,
 * authorized and limited as POST invoke would (InvocationService), launched together in one Redis
 * round trip; then read (and waited for) and canceled as one. A batch is its caller's: another
 * caller gets the 404 an unknown id gets.
 */
export class BatchDesk {
  constructor(private readonly deps: BatchDeskDeps) {}

  /**
   * Starts what the items ask: each item's place in the answer holds its execution's id, or the
   * error POST invoke would have answered for it. Only a body that is not a batch is refused whole.
   * The RateLimit headers are those the last limited item left.
   */
  async submit({ body, headers, address }: BatchSubmission): Promise<{
    accepted: BatchAccepted;
    headers: Record<string, string>;
  }> {
    if (headerOf(headers, 'idempotency-key') !== undefined) {
      throw new SkillError(
        'INVALID_INPUT',
        'A batch takes an idempotency_key in each item, not Idempotency-Key',
        {
          details: [{ path: 'header:Idempotency-Key', message: "send each item's idempotency_key instead" }],
        },
      );
    }
    const { caller, items } = envelopeValidator.parse(body);
    const bodyKey = caller.credentials?.api_key;
    // Every item is the batch caller's, with its credentials: the items act for this identity.
    const identity = await this.deps.identities.of(headers, { bodyKey });
    const owner = principalOf(identity)?.callerId;
    const { batchId, vshard } = this.deps.engine.placeBatch();
    const places = new Array<Place>(items.length);
    const { invocations, refused, repeats } = itemInvocations(items, caller, {
      headers,
      address,
      origin: { kind: 'batch-item', batchId, ...(vshard === undefined ? {} : { vshard }) },
      identity,
    });
    for (const [index, error] of refused) places[index] = this.refused(error);
    const prepared = await this.deps.invocations.prepareAll(invocations.map(({ invocation }) => invocation));
    const ready: { index: number; prepared: Prepared }[] = [];
    let limitHeaders: Record<string, string> = {};
    for (const [at, preparation] of prepared.entries()) {
      const { index } = invocations[at] as { index: number };
      if (Object.keys(preparation.headers).length > 0) limitHeaders = preparation.headers;
      if ('ready' in preparation) {
        ready.push({ index, prepared: preparation.ready });
        places[index] = placeOf(preparation.ready.launch.payload);
      } else {
        places[index] =
          'accepted' in preparation
            ? placeOf(preparation.accepted.execution)
            : this.refused(preparation.refused);
      }
    }
    const batch: StoredBatch = {
      id: batchId,
      owner,
      caller: { id: caller.id, type: caller.type },
      createdAt: Date.now(),
      items: items.length,
      executions: executionsOf(places),
    };
    await this.launch(batch, ready, places);
    for (const [index, first] of repeats) places[index] = places[first] as Place;
    for (const place of places) this.count(place);
    return { accepted: { batch_id: batchId, executions: places.map(slotOf) }, headers: limitHeaders };
  }

  /**
   * The batch's record and its executions' launches, in one write and one round trip; the items
   * whose launch was refused get their error in place, and the record is written again without them
   * (or again at all, if it failed): what a batch names is what exists.
   */
  private async launch(
    batch: StoredBatch,
    ready: { index: number; prepared: Prepared }[],
    places: Place[],
  ): Promise<void> {
    // Sent before the launch, in its write: an execution that ends at once finds its batch.
    const saved = this.deps.batches.save(batch).then(
      () => true,
      () => false,
    );
    const launched = await this.deps.invocations.launchAll(ready.map(({ prepared }) => prepared));
    for (const [at, outcome] of launched.entries()) {
      const { index } = ready[at] as { index: number };
      if ('refused' in outcome) places[index] = this.refused(outcome.refused);
    }
    const executions = executionsOf(places);
    if ((await saved) && executions.length === batch.executions.length) return;
    await this.deps.batches.save({ ...batch, executions }).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, batch_id: batch.id }, 'the batch record could not be written');
    });
  }

  /**
   * The batch, at once or, asked to wait, once every execution of it has ended (at most `seconds`,
   * capped at MAX_WAIT_SECONDS): one execution watched at a time, in the items' order.
   */
  async read(
    batchId: string,
    headers: RequestHeaders,
    wait?: { seconds: number; signal: AbortSignal },
  ): Promise<BatchAnswer> {
    const session = this.deps.engine.readSession();
    const { batch, principal } = await this.owned(batchId, headers);
    const briefs = await this.briefs(batch.executions);
    const view = (of: (ExecutionBrief | null)[]) => this.told(batch, visibleTo(principal, of), session);
    if (wait === undefined) return { view: await view(briefs) };
    const seconds = Math.min(wait.seconds, this.deps.maxWaitSeconds);
    const until = Date.now() + seconds * 1000;
    for (let next = unended(briefs, 0); next !== -1; next = unended(briefs, next)) {
      if (wait.signal.aborted || Date.now() >= until) break;
      const id = batch.executions[next] as string;
      // Past MAX_WAITERS the request is answered at once rather than refused.
      if (!(await this.deps.reader.waitForEnd(id, until, wait.signal))) {
        return { view: await view(await this.briefs(batch.executions, briefs)) };
      }
      // Still going (the wait ran out, or announcements were lost): the loop decides.
      briefs[next] = await this.deps.store.records.brief(id);
    }
    const fresh = await this.briefs(batch.executions, briefs);
    return { view: await view(fresh), appliedWaitSeconds: seconds };
  }

  /**
   * Cancels every execution of the batch that has not ended, each with the ordinary atomic cancel
   * (one that ends meanwhile keeps its end); answers the batch as it then stands.
   */
  async cancel(batchId: string, headers: RequestHeaders): Promise<BatchView> {
    const { batch, principal } = await this.owned(batchId, headers);
    assertMayCancel(principal);
    const briefs = visibleTo(principal, await this.briefs(batch.executions));
    await Promise.all(
      briefs.map(async (brief) => {
        if (!brief || isTerminalStatus(brief.status)) return;
        const execution = await this.deps.store.records.get(brief.execution_id);
        if (execution) await this.deps.canceler.cancelFound(execution, principal);
      }),
    );
    const session = this.deps.engine.readSession();
    return this.told(batch, visibleTo(principal, await this.briefs(batch.executions)), session);
  }

  /**
   * The batch's view, once its items' statuses past `accepted` are on the replicas (as GET status
   * tells one), by the `session` taken before they were read: not confirmed in time, 503 to be
   * asked again.
   */
  private async told(
    batch: StoredBatch,
    briefs: (ExecutionBrief | null)[],
    session: ReadSession,
  ): Promise<BatchView> {
    const read = briefs.filter((brief): brief is ExecutionBrief => brief !== null);
    if (!(await session.mayTell(...read))) throw statusNotReplicated();
    return viewOf(batch, briefs);
  }

  /** The batch, if it exists and the request's caller may see it (its owner, or an admin). */
  private async owned(
    batchId: string,
    headers: RequestHeaders,
  ): Promise<{ batch: StoredBatch; principal: Principal | undefined }> {
    const [batch, identity] = await Promise.all([
      UUID.test(batchId) ? this.deps.batches.get(batchId) : null,
      this.deps.identities.of(headers),
    ]);
    const principal = principalOf(identity);
    if (
      !batch ||
      (batch.owner !== undefined && !overseesAll(principal) && batch.owner !== principal?.callerId)
    ) {
      throw new SkillError('BATCH_NOT_FOUND', `No batch "${batchId}"`);
    }
    return { batch, principal };
  }

  /** Each execution's status; those `known` to have ended are not read again. */
  private briefs(ids: string[], known: (ExecutionBrief | null)[] = []): Promise<(ExecutionBrief | null)[]> {
    return Promise.all(
      ids.map((id, index) => {
        const before = known[index];
        return before && isTerminalStatus(before.status) ? before : this.deps.store.records.brief(id);
      }),
    );
  }

  /** A refused item's place: its error, as POST invoke would have answered it. */
  private refused(error: unknown): Place {
    const known = knownErrorOf(error);
    if (!known) this.deps.logger.error({ err: error }, 'a batch item failed unexpectedly');
    const shown = known ?? new SkillError('INTERNAL_ERROR', 'An unexpected error occurred');
    return { error: toErrorBody(shown, 'INTERNAL_ERROR') };
  }

  /**
   * Each item counts as a batch item and as an invocation in the metrics: accepted (by skill) or
   * rejected (by reason).
   */
  private count(place: Place): void {
    const { metrics } = this.deps;
    if ('error' in place) {
      metrics.batchItem('rejected');
      metrics.invocationRejected(isErrorCode(place.error.code) ? place.error.code : 'UNKNOWN');
    } else {
      metrics.batchItem('accepted');
      metrics.invocationAccepted(place.skill_id);
    }
  }
}

/** Where an item stands: the execution it started (or its key's earlier one), or its refusal. */
type Place = { execution_id: string; skill_id: string } | { error: ErrorBody };

function placeOf({ execution_id, skill_id }: { execution_id: string; skill_id: string }): Place {
  return { execution_id, skill_id };
}

/** An item's place as the answer shows it. */
function slotOf(place: Place): BatchSlot {
  return 'error' in place ? { error: place.error } : { execution_id: place.execution_id };
}

/** The execution ids of the places that have one, in order. */
function executionsOf(places: Place[]): string[] {
  return places.flatMap((place) => ('execution_id' in place ? [place.execution_id] : []));
}

/**
 * The executions the reader may see, as GET status would let it: an item's execution may belong to
 * another caller than the batch (a skill whose own auth named it), and is then left out.
 */
function visibleTo(
  principal: Principal | undefined,
  briefs: (ExecutionBrief | null)[],
): (ExecutionBrief | null)[] {
  return briefs.map((brief) =>
    brief === null || brief.owner === null || overseesAll(principal) || brief.owner === principal?.callerId
      ? brief
      : null,
  );
}

/** The first execution from `from` on that has not ended (-1: none). */
function unended(briefs: (ExecutionBrief | null)[], from: number): number {
  for (let index = from; index < briefs.length; index++) {
    const brief = briefs[index];
    if (brief && !isTerminalStatus(brief.status)) return index;
  }
  return -1;
}
