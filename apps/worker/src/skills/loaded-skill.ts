import type { CompiledValue, SkillDefinition, SkillDescriptor, SkillPublication } from '@skillrun/core';
import type { KnowledgeIndex } from '../knowledge/knowledge-index';
import type { LlmSkillSettings } from '../llm/llm-settings';

/** Where a code skill runs: see the README's "Isolation" for what each protects against. */
export type Isolation = 'thread' | 'in-process';

/** A pipeline step of skill.json with its templates compiled at load. */
export interface CompiledStep {
  step: string;
  skill: string;
  version?: string;
  input: CompiledValue;
  condition?: CompiledValue;
  /** The template of its context.concurrency_key, if it has one. */
  concurrencyKey?: CompiledValue;
}

export interface CompiledPipeline {
  steps: CompiledStep[];
  outputMapping?: CompiledValue;
}

/** A code skill's module, or a composite's written as code. */
export interface CodeModule {
  /** The source module that exports `execute(input, ctx)`. */
  entry: string;
  /** That module compiled to one ES module, which threads load. */
  module: string;
  isolation: Isolation;
  /** The memory limit of the threads it runs on (skill.json memory_mb); the worker's default when absent. */
  memoryMb?: number;
}

/**
 * What runs when the skill is invoked, as loaded for its kind: `kind` names the body that runs it
 * (AttemptRunnerDeps.bodies), which answers everything else about the kind.
 */
export type LoadedBody =
  | { kind: 'code'; code: CodeModule }
  | { kind: 'llm'; prompt: string; settings: LlmSkillSettings }
  /** A declarative pipeline, or code that invokes its steps through ctx.invoke. */
  | { kind: 'composite'; pipeline: CompiledPipeline }
  | { kind: 'composite'; code: CodeModule }
  /** A knowledge skill's documents, indexed once when the worker loads it. */
  | { kind: 'knowledge'; index: KnowledgeIndex }
  /** Done by a person or an agent through the gateway's task endpoints. */
  | { kind: 'task' }
  /** Registered from elsewhere: the worker calls its provider (remote-skills.ts). */
  | { kind: 'remote'; descriptor: SkillDescriptor };

export interface LoadedSkill {
  definition: SkillDefinition;
  /** descriptor.json beside skill.json, or {} when there is none. */
  publication: SkillPublication;
  /** The skill.json file it came from. */
  file: string;
  body: LoadedBody;
}
