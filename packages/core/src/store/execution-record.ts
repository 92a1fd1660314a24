import type { ErrorBody } from '../schemas/error-body';
import type { Execution, ExecutionStatus, StepSummary, Usage } from '../schemas/execution';

/**
 * A step as the parent's record keeps it: which execution ran it, in which of the parent's
 * attempts. Its status is the child's own, read when the parent is read.
 */
export type StepEntry =
  | { step: string; skill_id: string; skill_version: string; execution_id: string; attempt: number }
  | { step: string; skill_id: string; status: 'skipped'; attempt: number };

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

function usageOf(fields: Record<string, string>): Usage | undefined {
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

export function stepEntriesOf(fields: Record<string, string>): StepEntry[] {
  return fields.steps === undefined ? [] : (JSON.parse(fields.steps) as StepEntry[]);
}

export function stepSummary(entry: StepEntry, childStatus: string | null | undefined): StepSummary {
  if ('status' in entry) {
    return { step: entry.step, skill_id: entry.skill_id, status: 'skipped', attempt: entry.attempt };
  }
  return {
    step: entry.step,
    skill_id: entry.skill_id,
    skill_version: entry.skill_version,
    execution_id: entry.execution_id,
    // A step whose record expired before its parent's is reported as it last could be: accepted.
    status: (childStatus ?? 'accepted') as ExecutionStatus,
    attempt: entry.attempt,
  };
}

/** The hash of an execution as the protocol shows it; null when there is no such record. */
export function toExecution(fields: Record<string, string>, steps?: StepSummary[]): Execution | null {
  if (!fields.execution_id || !fields.status) return null;
  const optional = (name: string) => (fields[name] === undefined ? {} : { [name]: fields[name] });
  const usage = usageOf(fields);
  return {
    execution_id: fields.execution_id,
    status: fields.status as ExecutionStatus,
    skill_id: fields.skill_id ?? '',
    skill_version: fields.skill_version ?? '',
    ...optional('requested_version'),
    ...(fields.output === undefined ? {} : { output: JSON.parse(fields.output) }),
    ...(fields.error === undefined ? {} : { error: JSON.parse(fields.error) as ErrorBody }),
    attempts: Number(fields.attempts ?? 0),
    max_attempts: Number(fields.max_attempts ?? 1),
    ...(fields.progress === undefined ? {} : { progress: Number(fields.progress) }),
    ...(usage ? { usage } : {}),
    ...(fields.parent_execution_id === undefined
      ? {}
      : { parent: { execution_id: fields.parent_execution_id, step: fields.parent_step ?? '' } }),
    ...(steps ? { steps } : {}),
    trace_id: fields.trace_id ?? '',
    priority: (fields.priority ?? 'normal') as Execution['priority'],
    caller: { id: fields.caller_id ?? '', type: fields.caller_type ?? '' },
    timestamps: {
      created_at: fields.created_at ?? '',
      updated_at: fields.updated_at ?? '',
      ...optional('started_at'),
      ...optional('completed_at'),
    } as Execution['timestamps'],
  };
}
