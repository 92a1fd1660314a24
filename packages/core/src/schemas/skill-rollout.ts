import { type Static, Type } from '@sinclair/typebox';
import { SemVer, VersionRange } from './semver';

/** The caller ids pins are made for: what an invocation's caller.id may be. */
export const PinnedCaller = Type.String({ minLength: 1, maxLength: 256 });

/** POST /skills/{id}/rollout (ours): ramp a version of the skill to a share of its unpinned callers. */
export const RolloutRequest = Type.Object(
  {
    version: SemVer,
    percent: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'The share of unpinned callers (0–100) whose invocations run `version`.',
    }),
  },
  { additionalProperties: false },
);
export type RolloutRequest = Static<typeof RolloutRequest>;

/** PUT /skills/{id}/pins/{caller} (ours): the version range every invocation of the caller runs. */
export const PinRequest = Type.Object({ version: VersionRange }, { additionalProperties: false });
export type PinRequest = Static<typeof PinRequest>;

/**
 * A version ramped: `percent` of the unpinned callers run it, the others the latest other version;
 * at 0% (rolled back) it is held back from every unpinned caller.
 */
export const SkillRamp = Type.Object({
  version: SemVer,
  percent: RolloutRequest.properties.percent,
  ramped_at: Type.String({ format: 'date-time', description: 'When the ramp was last set.' }),
  ramped_by: Type.String({ description: 'The admin who last set it.' }),
});
export type SkillRamp = Static<typeof SkillRamp>;

/** A caller pinned to a version range of the skill. */
export const VersionPin = Type.Object({
  caller: PinnedCaller,
  version: VersionRange,
  pinned_at: Type.String({ format: 'date-time' }),
  pinned_by: Type.String({ description: 'The admin who pinned the caller.' }),
});
export type VersionPin = Static<typeof VersionPin>;

/**
 * What GET/POST/DELETE /skills/{id}/rollout answer (ours): the skill's ramp, if any, and its
 * pinned callers. An invocation that names a version runs it; else a pinned caller runs its pin's
 * range; else the ramp decides, sticky per caller.
 */
export const SkillRollout = Type.Object({
  skill_id: Type.String(),
  ramp: Type.Union([SkillRamp, Type.Null()]),
  pins: Type.Array(VersionPin),
});
export type SkillRollout = Static<typeof SkillRollout>;

/**
 * How an invocation's version was chosen (the metric's `chosen_by` label): named by the request, by
 * the caller's pin, by the ramp, or by default (the latest, or under a ramp the latest other version).
 */
export type VersionChoice = 'request' | 'pin' | 'ramp' | 'default';
