import { ErrorCatalog, type ScheduleRunOutcome, type VersionChoice } from '@skillrun/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type PausedSkillsGaugeDeps, registerPausedSkillsGauge } from './paused-skills-gauge';
import { registerScaleToZeroGauges, type ScaleToZeroGaugesDeps } from './scale-to-zero-gauges';

/** Default gauges that promtool rejects for their _total suffix; the by-type gauges (nodejs_active_handles, …) sum to them. */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** From half a millisecond (a health check) to ten seconds (a request stuck on a slow Redis). */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Every reason an invocation can be rejected with: the catalogue's codes, and UNKNOWN for any other. */
const REJECTION_REASONS = [...Object.keys(ErrorCatalog), 'UNKNOWN'];
/** What a schedule's due time can come to. */
const SCHEDULE_RUN_OUTCOMES: readonly ScheduleRunOutcome[] = ['launched', 'skipped', 'failed'];
/** What an item of POST /batches comes to: an execution in its place, or an error envelope. */
export type BatchItemOutcome = 'accepted' | 'rejected';
const BATCH_ITEM_OUTCOMES: readonly BatchItemOutcome[] = ['accepted', 'rejected'];
/** The server-side statuses the catalogue maps a code to: what a 5xx ratio counts. */
const SERVER_ERROR_STATUSES = [
  ...new Set(Object.values(ErrorCatalog).flatMap(({ http }) => (http >= 500 ? [String(http)] : []))),
];

export interface HttpLabels {
  method: string;
  /** The Express route template (`/skills/:skillId/invoke`), or `unmatched`: never a raw URL. */
  route: string;
  status: string;
}

/**
 * What a gateway tells Prometheus, on a registry of its own: its requests and invocations, the
 * queues of pools that scale to zero, the skills paused, schedule runs and batch items. Labels stay
 * bounded: route templates, status codes, error codes and the ids of skills that exist, never
 * execution ids or callers.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'skillrun_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestDuration = new Histogram({
    name: 'skillrun_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly accepted = new Counter({
    name: 'skillrun_invocations_accepted_total',
    help: 'Invocations answered 202 Accepted, by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly debounced = new Counter({
    name: 'skillrun_invocations_debounced_total',
    help: 'Invocations answered 202 with the execution their debounce key had open (Debounced: true), by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly versions = new Counter({
    name: 'skillrun_invocations_by_version_total',
    help: "Executions started by invocations (POST invoke, batch items, schedules' runs, replays), by skill, the version chosen and what chose it: request (a version named), pin (the caller's pin), ramp (the skill's rollout) or default. A rollout's split is the ratio of ramp to default.",
    labelNames: ['skill', 'version', 'chosen_by'] as const,
    registers: [this.registry],
  });
  private readonly rejected = new Counter({
    name: 'skillrun_invocations_rejected_total',
    help: 'Invocations answered with an error, by the error code (the reason).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly canceled = new Counter({
    name: 'skillrun_executions_canceled_total',
    help: 'Executions ended as canceled by a cancel request (steps canceled with their composite included), by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly scheduleRuns = new Counter({
    name: 'skillrun_schedule_runs_total',
    help: "Schedules' due times this gateway ran, by outcome: launched (an execution started), skipped (overlap skip, the previous run still going) or failed (no execution could start: the credentials revoked, the inputs refused, a limit).",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly batchItems = new Counter({
    name: 'skillrun_batch_items_total',
    help: 'Items of POST /batches, by outcome: accepted (its place holds an execution) or rejected (its place holds an error envelope). Each is counted in skillrun_invocations_accepted_total or skillrun_invocations_rejected_total as well.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /** `method route` pairs whose server error counters show, at 0 until one happens. */
  private readonly routesSeen = new Set<string>();

  /**
   * `waiting`: the requests the gateway holds open until an execution changes (ExecutionWatcher),
   * which MAX_WAITERS bounds.
   */
  constructor(queueReads: ScaleToZeroGaugesDeps & PausedSkillsGaugeDeps, waiting: () => number) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'skillrun_waiting_requests',
      help: 'Requests this gateway holds open until an execution changes or ends (waiting reads, POST invoke with Prefer: wait, event streams); MAX_WAITERS bounds them.',
      registers: [this.registry],
      collect() {
        this.set(waiting());
      },
    });
    registerScaleToZeroGauges(this.registry, queueReads);
    registerPausedSkillsGauge(this.registry, queueReads);
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    // Every known reason shows at 0 from the start, so that rate() sees the first rejection.
    for (const reason of REJECTION_REASONS) this.rejected.inc({ reason }, 0);
    for (const outcome of SCHEDULE_RUN_OUTCOMES) this.scheduleRuns.inc({ outcome }, 0);
    for (const outcome of BATCH_ITEM_OUTCOMES) this.batchItems.inc({ outcome }, 0);
  }

  requestAnswered(labels: HttpLabels, seconds: number): void {
    // Once a route has answered, its 5xx counters show at 0, so that rate() sees its first failure.
    const route = `${labels.method} ${labels.route}`;
    if (!this.routesSeen.has(route)) {
      this.routesSeen.add(route);
      for (const status of SERVER_ERROR_STATUSES) this.requests.inc({ ...labels, status }, 0);
    }
    this.requests.inc(labels);
    this.requestDuration.observe(labels, seconds);
  }

  invocationAccepted(skill: string): void {
    this.accepted.inc({ skill });
  }

  /** An invocation collapsed into the execution its debounce key had open (counted as accepted too). */
  invocationDebounced(skill: string): void {
    this.debounced.inc({ skill });
  }

  /** An execution started on `version` of `skill`, chosen by `chosenBy`. */
  versionChosen(skill: string, version: string, chosenBy: VersionChoice): void {
    this.versions.inc({ skill, version, chosen_by: chosenBy });
  }

  executionCanceled(skill: string): void {
    this.canceled.inc({ skill });
  }

  invocationRejected(reason: string): void {
    this.rejected.inc({ reason });
  }

  scheduleRun(outcome: ScheduleRunOutcome): void {
    this.scheduleRuns.inc({ outcome });
  }

  batchItem(outcome: BatchItemOutcome): void {
    this.batchItems.inc({ outcome });
  }
}
