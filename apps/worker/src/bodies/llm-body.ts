import { type JobBudget, SkillError, type SkillSchemas, toErrorBody } from '@skillrun/core';
import type { DailySpend, ExecutionStore, TokenCost } from '@skillrun/core/data';
import type { BudgetHold, LlmClient, LlmUsage } from '../llm/llm-client';
import {
  type LlmDefaults,
  type LlmSettingsResolution,
  type ResolvedLlmSettings,
  resolveLlmSettings,
} from '../llm/llm-settings';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

export interface LlmBodyDeps {
  client: LlmClient;
  defaults: LlmDefaults;
  env: NodeJS.ProcessEnv;
  schemas: SkillSchemas;
  store: ExecutionStore;
  /** Callers' spend per day, for those with a daily budget (the job's daily_spend_of). */
  dailySpend: DailySpend;
  /** Every answer's token usage, for metrics. */
  onUsage(skill: LoadedSkill, usage: LlmUsage): void;
  /** Every priced answer's cost in nano-dollars, for metrics (by skill and caller). */
  onCost(skill: LoadedSkill, caller: string, costNano: number): void;
}

const UNPRICED: TokenCost = { input: 0, output: 0 };

/**
 * prompt.md sent with the input to an OpenAI-compatible model, whose answer must match the output
 * schema. Tokens are added to the execution's record as each answer arrives; the attempt's
 * deadline, or a cancel, aborts the HTTP call. With skill.json `"stream": true`, the answer's text
 * is streamed as the execution's chunks as the model writes it. Priced (llm.json's `price`, the
 * worker's LLM_*_USD_PER_MTOK), each answer's cost is added too. With a budget (context.budget),
 * each call holds its share of the tree's first, its max_tokens capped at what is left, and stops
 * at max_duration_ms.
 */
export class LlmBody implements SkillBody {
  readonly resumes = false;
  readonly countsStarts = true;
  readonly handsIn = false;
  private readonly settings = new Map<LoadedSkill, LlmSettingsResolution>();

  constructor(private readonly deps: LlmBodyDeps) {}

  /** Whether an llm skill can run here, and if not, what to set. */
  settingsOf(skill: LoadedSkill): LlmSettingsResolution {
    let resolution = this.settings.get(skill);
    if (!resolution) {
      const own = skill.body.kind === 'llm' ? skill.body.settings : {};
      resolution = resolveLlmSettings(this.deps.defaults, own, this.deps.env);
      this.settings.set(skill, resolution);
    }
    return resolution;
  }

  async run(attempt: Attempt): Promise<BodyOutcome> {
    const { payload, skill, input, deadline, cancel } = attempt;
    const { signal } = cancel;
    if (skill.body.kind !== 'llm') throw new Error(`${skill.definition.name} has no prompt`);
    const resolution = this.settingsOf(skill);
    if (!resolution.ok) return { ok: false, error: notConfigured(skill, resolution.missing) };
    const { definition } = skill;
    const { budget } = payload;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
    const overTime = new AbortController();
    const budgetTimer =
      budget?.ends_at === undefined
        ? undefined
        : setTimeout(() => overTime.abort(), Math.max(0, budget.ends_at - Date.now()));
    // A stream over its bounds stops the call, which fails with the writer's OUTPUT_TOO_LARGE.
    const overflow = new AbortController();
    // Recorded before the outcome, so that a completed execution shows all it spent.
    const recording: Promise<void>[] = [];
    try {
      const output = await this.deps.client.complete({
        skillId: definition.name,
        settings: resolution.settings,
        systemPrompt: skill.body.prompt,
        input,
        outputSchema: definition.output,
        validate: (value) => this.deps.schemas.validate(definition.output, value, '/output'),
        signal: AbortSignal.any([controller.signal, signal, overflow.signal, overTime.signal]),
        onUsage: (usage) => {
          this.deps.onUsage(skill, usage);
          const costNano = costOf(usage, resolution.settings.cost);
          if (costNano > 0) this.deps.onCost(skill, payload.caller.id, costNano);
          const spent = { increments: [usage], costNano };
          recording.push(this.deps.store.usage.add(payload.execution_id, spent).catch(() => {}));
          const payer = payload.daily_spend_of;
          if (payer !== undefined && costNano > 0) {
            recording.push(this.deps.dailySpend.add(payer, costNano).catch(() => {}));
          }
        },
        ...(budget
          ? { hold: (promptTokens: number) => this.hold(budget, resolution.settings, promptTokens) }
          : {}),
        ...(definition.stream
          ? {
              onDelta: (text: string) => {
                const { chunks } = attempt;
                if (!chunks.emit(text) && chunks.exceeded) overflow.abort(chunks.exceeded);
              },
            }
          : {}),
      });
      return { ok: true, output };
    } catch (error) {
      if (signal.aborted) return { ok: false, canceled: true };
      if (controller.signal.aborted) return { ok: false, timedOut: true };
      if (budget && overTime.signal.aborted) return { ok: false, error: overDuration(budget) };
      return { ok: false, error: toErrorBody(error, 'LLM_PROVIDER_ERROR') };
    } finally {
      clearTimeout(timer);
      clearTimeout(budgetTimer);
      await Promise.all(recording);
    }
  }

  /** A call's share of the tree's budget, given back with what the call spent. */
  private async hold(
    budget: JobBudget,
    settings: ResolvedLlmSettings,
    promptTokens: number,
  ): Promise<BudgetHold> {
    const { budgets } = this.deps.store;
    const cost = settings.cost ?? UNPRICED;
    const reservation = await budgets.reserve(budget, promptTokens, settings.maxTokens, cost);
    return {
      ...(reservation.maxTokens === undefined ? {} : { maxTokens: reservation.maxTokens }),
      release: async (usage) => {
        const tokens = usage ? usage.prompt_tokens + usage.completion_tokens : 0;
        const costNano = usage ? costOf(usage, settings.cost) : 0;
        await budgets.settle(budget, reservation, tokens, costNano);
      },
    };
  }
}

/** What an answer cost at the model's price, in nano-dollars (0 when it has none). */
function costOf(usage: LlmUsage, cost: TokenCost | undefined): number {
  if (!cost) return 0;
  return Math.round(usage.prompt_tokens * cost.input + usage.completion_tokens * cost.output);
}

function overDuration(budget: JobBudget) {
  return new SkillError(
    'BUDGET_EXCEEDED',
    `The execution's budget is spent: max_duration_ms (${budget.limits.max_duration_ms}) reached during the LLM call`,
    { recoverable: false, details: { limit: 'max_duration_ms', budget: budget.limits } },
  ).toBody();
}

function notConfigured(skill: LoadedSkill, missing: string[]) {
  return new SkillError(
    'TOOL_NOT_AVAILABLE',
    `No LLM provider is configured for ${skill.definition.name}: set ${missing.join(' and ')} on the worker`,
    { recoverable: false },
  ).toBody();
}
