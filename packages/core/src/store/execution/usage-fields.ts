import type { Usage } from '../../schemas/execution';
import { usdOfNano } from './nano-dollars';

export interface UsageIncrement {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** What an execution spent: tokens per model, and its cost in nano-dollars (0: nothing priced). */
export interface Spent {
  increments: UsageIncrement[];
  costNano: number;
}

/** Usage is kept as one counter field per model and kind, so that increments are atomic HINCRBYs. */
const USAGE_FIELD = /^usage:(prompt_tokens|completion_tokens|requests):(.+)$/;
/** The cost, over all models and fixed costs, in nano-dollars (an integer, added exactly). */
const COST_FIELD = 'usage:cost_nano_usd';

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

/** The field/increment pairs that add what was spent to a record. */
export function spentFields({ increments, costNano }: Spent): string[] {
  return [
    ...increments.flatMap((increment) => usageFields(increment)),
    ...(costNano > 0 ? [COST_FIELD, String(Math.round(costNano))] : []),
  ];
}

/** What an execution's record says it spent, summed over its models (none: it spent nothing). */
export function usageOf(fields: Record<string, string>): Usage | undefined {
  const costNano = Number(fields[COST_FIELD] ?? 0);
  let usage: Usage | undefined;
  // A loop over the keys, not Object.entries, and the usage made only once a field is found: every
  // read of a record (and every launch) passes here, and most records have none.
  for (const field in fields) {
    const match = field.startsWith('usage:') ? USAGE_FIELD.exec(field) : null;
    if (!match) continue;
    const [, kind, model] = match as unknown as [
      string,
      'prompt_tokens' | 'completion_tokens' | 'requests',
      string,
    ];
    usage ??= emptyUsage();
    usage[kind] += Number(fields[field]);
    if (!usage.models.includes(model)) usage.models.push(model);
  }
  if (usage === undefined && costNano === 0) return undefined;
  usage ??= emptyUsage();
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  usage.models.sort();
  return costNano > 0 ? { ...usage, cost_usd: usdOfNano(costNano) } : usage;
}

function emptyUsage(): Usage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, requests: 0, models: [] };
}

/** Per model, and its cost, what an execution's record says it spent (to add a step's to its parent's). */
export function spentOf(fields: Record<string, string>): Spent {
  const byModel = new Map<string, UsageIncrement>();
  for (const [field, value] of Object.entries(fields)) {
    const match = USAGE_FIELD.exec(field);
    if (!match || match[1] === 'requests') continue;
    const model = match[2] as string;
    const entry = byModel.get(model) ?? { model, prompt_tokens: 0, completion_tokens: 0 };
    entry[match[1] as 'prompt_tokens' | 'completion_tokens'] += Number(value);
    byModel.set(model, entry);
  }
  return { increments: [...byModel.values()], costNano: Number(fields[COST_FIELD] ?? 0) };
}
