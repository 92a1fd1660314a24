import type { Usage } from '../../schemas/execution';

export interface UsageIncrement {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Usage is kept as one counter field per model and kind, so that increments are atomic HINCRBYs. */
const USAGE_FIELD = /^usage:(prompt_tokens|completion_tokens|requests):(.+)$/;

export function usageFields({ model, prompt_tokens, completion_tokens }: UsageIncrement): string[] {
  return [
    `usage:prompt_tokens:${model}`,
    String(prompt_tokens),
    `usage:completion_tokens:${model}`,
    String(completion_tokens),
    `usage:requests:${model}`,
    '1',
  ];
}

/** What an execution's record says it spent, summed over its models (none: it spent nothing). */
export function usageOf(fields: Record<string, string>): Usage | undefined {
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, requests: 0, models: [] };
  for (const [field, value] of Object.entries(fields)) {
    const match = USAGE_FIELD.exec(field);
    if (!match) continue;
    const [, kind, model] = match as unknown as [
      string,
      'prompt_tokens' | 'completion_tokens' | 'requests',
      string,
    ];
    usage[kind] += Number(value);
    if (!usage.models.includes(model)) usage.models.push(model);
  }
  if (usage.models.length === 0) return undefined;
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  usage.models.sort();
  return usage;
}

/** Per model, what an execution's record says it spent (to add a step's usage to its parent's). */
export function usageIncrements(fields: Record<string, string>): UsageIncrement[] {
  const byModel = new Map<string, UsageIncrement>();
  for (const [field, value] of Object.entries(fields)) {
    const match = USAGE_FIELD.exec(field);
    if (!match || match[1] === 'requests') continue;
    const model = match[2] as string;
    const entry = byModel.get(model) ?? { model, prompt_tokens: 0, completion_tokens: 0 };
    entry[match[1] as 'prompt_tokens' | 'completion_tokens'] += Number(value);
    byModel.set(model, entry);
  }
  return [...byModel.values()];
}
