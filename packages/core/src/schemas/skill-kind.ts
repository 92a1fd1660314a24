import type { SkillMode } from './skill-definition';
import type { CapabilityType } from './skill-descriptor';

/**
 * What kind of skill: the one word the code uses for it, which says how its body runs and so what a
 * worker does with its executions. A hosted skill's kind is its skill.json `mode` (spec 003's code,
 * llm and composite; ours, knowledge and task); a skill registered from elsewhere with its spec 000
 * descriptor is `remote`, whatever its provider runs. Spec 000's own word for it, `capability_type`,
 * is mapped from the kind in one place: capabilityTypeOf.
 */
export type SkillKind = SkillMode | 'remote';

/**
 * The capability_type a hosted skill of each kind is published with, when its descriptor.json does not
 * say: knowledge and task are spec 000's own types; the others, plugins or APIs alike, take the
 * gateway's default. A record, so that a new kind cannot be left out.
 */
const PUBLISHED_AS: Record<SkillMode, CapabilityType | undefined> = {
  code: undefined,
  llm: undefined,
  composite: undefined,
  knowledge: 'knowledge',
  task: 'task',
};

/** Spec 000's capability_type of a hosted skill of this kind; `fallback` where the kind does not tell. */
export function capabilityTypeOf(kind: SkillMode, fallback: CapabilityType): CapabilityType {
  return PUBLISHED_AS[kind] ?? fallback;
}
