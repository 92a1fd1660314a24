import type { TerminalStatus } from '@skillrun/core';
import { usdOfNano } from '@skillrun/core/data';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { LlmUsage } from '../llm/llm-client';

/** Default gauges that promtool rejects for their _total suffix; the by-type gauges (nodejs_active_handles, …) sum to them. */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** From 5 ms (an echo) to 10 minutes (a long composite, or a deep queue). */
const RUNTIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** What a worker ends an execution with; `canceled` is counted by the gateway that cancels it. */
const FINAL_STATUSES: Exclude<TerminalStatus, 'canceled'>[] = ['completed', 'failed', 'timeout'];

/**
 * What a worker tells Prometheus, on a registry of its own. Labels stay bounded: skill ids, versions
 * and model names, never execution ids or callers (cost per caller is read from the execution
 * records, which carry both).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly executions = new Counter({
    name: 'skillrun_executions_total',
    help: 'Executions that reached a final status (completed, failed, timeout), by skill.',
    labelNames: ['skill', 'status'] as const,
    registers: [this.registry],
  });
  private readonly executionDuration = new Histogram({
    name: 'skillrun_execution_duration_seconds',
    help: 'Time from an execution first starting to its final status, by skill and status.',
    labelNames: ['skill', 'status'] as const,
    buckets: RUNTIME_BUCKETS,
    registers: [this.registry],
  });
  private readonly queueWait = new Histogram({
    name: 'skillrun_queue_wait_seconds',
    help: 'Time from an invocation being accepted (a delayed one: being due) to its first attempt running, by skill.',
    labelNames: ['skill'] as const,
    buckets: RUNTIME_BUCKETS,
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'skillrun_attempts_total',
    help: 'Attempts started, retries included, by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'skillrun_retries_total',
    help: 'Attempts started after the first (retries), by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly timeouts = new Counter({
    name: 'skillrun_timeouts_total',
    help: 'Attempts ended by their deadline, by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly parked = new Counter({
    name: 'skillrun_concurrency_parked_total',
    help: 'Jobs parked because their skill was at its concurrency limit (in all, or for their concurrency key), by skill.',
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly deferred = new Counter({
    name: 'skillrun_rate_limited_total',
    help: "Times a worker found no start free in its skill's rate limit and waited before taking a job, by skill.",
    labelNames: ['skill'] as const,
    registers: [this.registry],
  });
  private readonly llmTokens = new Counter({
    name: 'skillrun_llm_tokens_total',
    help: 'LLM tokens spent by llm skills, by skill, model and kind (prompt or completion).',
    labelNames: ['skill', 'model', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly costUsd = new Counter({
    name: 'skillrun_cost_usd_total',
    help: "What executions cost in US dollars at the price table (LLM tokens, skills' fixed costs), by skill and caller.",
    labelNames: ['skill', 'caller'] as const,
    registers: [this.registry],
  });
  private readonly llmAnswers = new Counter({
    name: 'skillrun_llm_answers_total',
    help: 'Answers received from LLM providers (a repair round is one more), by skill and model.',
    labelNames: ['skill', 'model'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
  }

  /** Shows the hosted skills' counters at 0 from the start, so that rates work from the first event. */
  host(skills: string[]): void {
    for (const skill of skills) {
      for (const counter of [this.attempts, this.retries, this.timeouts]) counter.inc({ skill }, 0);
      for (const status of FINAL_STATUSES) this.executions.inc({ skill, status }, 0);
    }
  }

  /** An attempt starts (`attempt` 1 is the first); `queuedSeconds` is known on the first one. */
  attemptStarted(skill: string, attempt: number, queuedSeconds: number): void {
    this.attempts.inc({ skill });
    if (attempt > 1) this.retries.inc({ skill });
    else this.queueWait.observe({ skill }, Math.max(0, queuedSeconds));
  }

  /** A job was parked: its execution waits for a slot of its skill's concurrency limits. */
  executionParked(skill: string): void {
    this.parked.inc({ skill });
  }

  /** A worker found no start free in the skill's rate limit: its jobs wait in their queue. */
  startDeferred(skill: string): void {
    this.deferred.inc({ skill });
  }

  attemptTimedOut(skill: string): void {
    this.timeouts.inc({ skill });
  }

  /** An execution reached its final status just now; `startedAtMs` (its first start) is missing or NaN if it never started. */
  executionEnded(skill: string, status: Exclude<TerminalStatus, 'canceled'>, startedAtMs?: number): void {
    this.executions.inc({ skill, status });
    if (startedAtMs === undefined || Number.isNaN(startedAtMs)) return;
    this.executionDuration.observe({ skill, status }, Math.max(0, (Date.now() - startedAtMs) / 1000));
  }

  llmUsage(skill: string, usage: LlmUsage): void {
    const labels = { skill, model: usage.model };
    this.llmTokens.inc({ ...labels, kind: 'prompt' }, usage.prompt_tokens);
    this.llmTokens.inc({ ...labels, kind: 'completion' }, usage.completion_tokens);
    this.llmAnswers.inc(labels);
  }

  /** What an execution spent (nano-dollars), counted against its skill and caller. */
  cost(skill: string, caller: string, costNano: number): void {
    this.costUsd.inc({ skill, caller }, usdOfNano(costNano));
  }
}
