import { SkillError, type SkillSchemas, toErrorBody } from '@skillrun/core';
import type { ExecutionStore } from '@skillrun/core/data';
import type { LlmClient, LlmUsage } from '../llm/llm-client';
import { type LlmDefaults, type LlmSettingsResolution, resolveLlmSettings } from '../llm/llm-settings';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

export interface LlmBodyDeps {
  client: LlmClient;
  defaults: LlmDefaults;
  env: NodeJS.ProcessEnv;
  schemas: SkillSchemas;
  store: ExecutionStore;
  /** Every answer's token usage, for metrics. */
  onUsage(skill: LoadedSkill, usage: LlmUsage): void;
}

/**
 * prompt.md sent with the input to an OpenAI-compatible model, whose answer must match the output
 * schema. Tokens are added to the execution's record as each answer arrives; the attempt's
 * deadline, or a cancel, aborts the HTTP call. With skill.json `"stream": true`, the answer's text
 * is streamed as the execution's chunks as the model writes it.
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
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
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
        signal: AbortSignal.any([controller.signal, signal, overflow.signal]),
        onUsage: (usage) => {
          this.deps.onUsage(skill, usage);
          recording.push(this.deps.store.usage.add(payload.execution_id, [usage]).catch(() => {}));
        },
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
      return { ok: false, error: toErrorBody(error, 'LLM_PROVIDER_ERROR') };
    } finally {
      clearTimeout(timer);
      await Promise.all(recording);
    }
  }
}

function notConfigured(skill: LoadedSkill, missing: string[]) {
  return new SkillError(
    'TOOL_NOT_AVAILABLE',
    `No LLM provider is configured for ${skill.definition.name}: set ${missing.join(' and ')} on the worker`,
    { recoverable: false },
  ).toBody();
}
