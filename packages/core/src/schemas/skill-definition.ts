import { type Static, Type } from '@sinclair/typebox';
import { ApprovalPolicy } from './approval';
import { JsonSchemaObject, StringEnum } from './json-schema';
import { SemVer, VersionRange } from './semver';

/**
 * Spec 003's modes, and ours: `knowledge`, a body of documents answering queries, and `task`, work
 * a person or an agent does and hands in through the task endpoints. A hosted skill's mode is its
 * kind (SkillKind, the code's word for it).
 */
export const SkillMode = StringEnum(['code', 'llm', 'composite', 'knowledge', 'task']);
export type SkillMode = Static<typeof SkillMode>;

export const PipelineStep = Type.Object({
  step: Type.String(),
  skill: Type.String(),
  input: Type.Object({}, { additionalProperties: true }),
  condition: Type.Optional(Type.String()),
  /** Ours: the version range of the skill this step calls (the latest when left out). */
  version: Type.Optional(VersionRange),
  /**
   * Ours: the step's invocation context. `concurrency_key` (a template, as `input`'s values are):
   * what the called skill's `concurrency.per_key` counts it under; a step has none unless it says.
   */
  context: Type.Optional(
    Type.Object({ concurrency_key: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  ),
});
export type PipelineStep = Static<typeof PipelineStep>;

/** Ours: who may do a `task` skill's executions, and what they are told. */
export const TaskSettings = Type.Object(
  {
    /** Caller ids that may see, claim and complete its tasks; any authenticated caller when absent. */
    assignees: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, uniqueItems: true })),
    /** What to do, shown with each task (Markdown). */
    instructions: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
  },
  { additionalProperties: false },
);
export type TaskSettings = Static<typeof TaskSettings>;

/**
 * Ours: how many executions of a skill run at once, across every worker, version and priority:
 * `limit` in all, `per_key` for each `context.concurrency_key`. Those over it wait (status
 * `accepted`, `waiting_for: "concurrency"`) without holding a worker's slot.
 */
export const ConcurrencySettings = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    per_key: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ConcurrencySettings = Static<typeof ConcurrencySettings>;

/** Ours: at most `max` executions of a skill start in any `per_ms` window, across every worker. */
export const RateLimitSettings = Type.Object(
  {
    max: Type.Integer({ minimum: 1, maximum: 100_000 }),
    per_ms: Type.Integer({ minimum: 1, maximum: 86_400_000 }),
  },
  { additionalProperties: false },
);
export type RateLimitSettings = Static<typeof RateLimitSettings>;

/** skill.json, spec 003 section 8: "a skill is a function; skill.json is its signature". */
export const SkillDefinition = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 128 }),
    description: Type.String({ minLength: 1 }),
    category: Type.String(),
    input: JsonSchemaObject,
    output: JsonSchemaObject,
    mode: SkillMode,
    calls: Type.Array(Type.String(), { default: [] }),
    pipeline: Type.Optional(Type.Array(PipelineStep)),
    outputMapping: Type.Optional(Type.Object({}, { additionalProperties: true })),
    version: Type.String({ ...SemVer, default: '1.0.0' }),
    tags: Type.Array(Type.String(), { default: [] }),
    author: Type.Optional(Type.String()),
    timeout: Type.Number({ default: 30000, exclusiveMinimum: 0 }),
    retry: Type.Integer({ default: 0, minimum: 0, maximum: 100 }),
    /** Ours: ms an execution may wait to start before it ends as a timeout without running. */
    queue_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800_000 })),
    /** Ours: where a code skill runs (a sandbox thread by default, or the worker's own thread). */
    isolation: Type.Optional(StringEnum(['thread', 'in-process'])),
    /**
     * Ours: the memory a code skill's sandbox thread may use, in MB (its heap, and as much again in
     * buffers outside it); the worker's SANDBOX_THREAD_MEMORY_MB when absent.
     */
    memory_mb: Type.Optional(Type.Integer({ minimum: 16, maximum: 65_536 })),
    /**
     * Ours: for mode "llm", whether the model's answer is streamed as it comes (its text deltas are
     * the execution's chunks, as a code skill's ctx.emit); a code skill streams without it.
     */
    stream: Type.Optional(Type.Boolean()),
    /** Ours: for mode "task", who may do its executions and what they are told. */
    task: Type.Optional(TaskSettings),
    /** Ours: how many of its executions run at once, in all and per concurrency key. */
    concurrency: Type.Optional(ConcurrencySettings),
    /** Ours: how many of its executions start per window of time. */
    rate_limit: Type.Optional(RateLimitSettings),
    /** Ours: an execution waits (`awaiting_approval`) for an approver's decision before it runs. */
    approval: Type.Optional(ApprovalPolicy),
    /**
     * Ours: for a code skill (one that calls a paid API, say), what each run of it costs in US
     * dollars, added to its usage's cost_usd (an llm skill's cost is its tokens').
     */
    cost_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false, $id: 'https://skillrun.dev/schemas/skill.json' },
);
export type SkillDefinition = Static<typeof SkillDefinition>;
