/**
 * The input and output types of the skills a consumer uses, by skill id. Empty here; generated code
 * augments it:
 *
 * ```ts
 * declare module '@skillrun/client' {
 *   interface SkillTypes { text_stats: { input: { text: string }; output: { words: number } } }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: augmented by declaration merging.
export interface SkillTypes {}

export type SkillInput<Id extends string> = Id extends keyof SkillTypes
  ? SkillTypes[Id] extends { input: infer Input }
    ? Input
    : Record<string, unknown>
  : Record<string, unknown>;

export type SkillOutput<Id extends string> = Id extends keyof SkillTypes
  ? SkillTypes[Id] extends { output: infer Output }
    ? Output
    : unknown
  : unknown;
