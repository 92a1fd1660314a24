import type { CompiledValue, SkillDefinition, SkillDescriptor, SkillPublication } from '@skillrun/core';
import type { KnowledgeIndex } from './knowledge/knowledge-index';
import type { LlmSkillSettings } from './llm/llm-settings';

/** Where a code skill runs: see the README's "Isolation" for what each protects against. */
export type Isolation = 'thread' | 'in-process';

/** A pipeline step of skill.json with its templates compiled at load. */
export interface CompiledStep {
  step: string;
  skill: string;
  version?: string;
  input: CompiledValue;
  condition?: CompiledValue;
}

export interface CompiledPipeline {
  steps: CompiledStep[];
  outputMapping?: CompiledValue;
}

/** What runs when the skill is invoked, by mode (a composite is a pipeline or code). */
export type LoadedBody =
  | {
      kind: 'code';
      /** The source module that exports `execute(input, ctx)`. */
      entry: string;
      /** That module compiled to one ES module, which threads load. */
      module: string;
      isolation: Isolation;
      /** The memory limit of the threads it runs on (skill.json memory_mb); the worker's default when absent. */
      memoryMb?: number;
    }
  | { kind: 'llm'; prompt: string; settings: LlmSkillSettings }
  | { kind: 'pipeline'; pipeline: CompiledPipeline }
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
