import { type Static, Type } from '@sinclair/typebox';
import { JsonSchemaObject, StringEnum } from './json-schema';
import { SemVer, VersionRange } from './semver';

/** Spec 003's modes, and ours: `knowledge`, a body of documents answering queries. */
export const SkillMode = StringEnum(['code', 'llm', 'composite', 'knowledge']);
export type SkillMode = Static<typeof SkillMode>;

export const PipelineStep = Type.Object({
  step: Type.String(),
  skill: Type.String(),
  input: Type.Object({}, { additionalProperties: true }),
  condition: Type.Optional(Type.String()),
  /** Ours: the version range of the skill this step calls (the latest when left out). */
  version: Type.Optional(VersionRange),
});
export type PipelineStep = Static<typeof PipelineStep>;

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
  },
  { additionalProperties: false, $id: 'https://skillrun.dev/schemas/skill.json' },
);
export type SkillDefinition = Static<typeof SkillDefinition>;
