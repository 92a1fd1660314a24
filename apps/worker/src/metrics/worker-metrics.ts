import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import type { LlmUsage } from '../llm/llm-client';

/**
 * What a worker tells Prometheus. Labels stay bounded: skill ids and model names, never execution
 * ids or callers (cost per caller is read from the execution records, which carry both).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly llmTokens = new Counter({
    name: 'skillrun_llm_tokens_total',
    help: 'LLM tokens spent by llm skills, by skill, model and kind (prompt or completion).',
    labelNames: ['skill', 'model', 'kind'] as const,
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
  }

  llmUsage(skill: string, usage: LlmUsage): void {
    const labels = { skill, model: usage.model };
    this.llmTokens.inc({ ...labels, kind: 'prompt' }, usage.prompt_tokens);
    this.llmTokens.inc({ ...labels, kind: 'completion' }, usage.completion_tokens);
    this.llmAnswers.inc(labels);
  }
}
