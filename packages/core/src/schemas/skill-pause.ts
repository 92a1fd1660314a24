import { type Static, Type } from '@sinclair/typebox';

/** When a skill was paused, and by whom: an operator's hold on every version of it. */
export const SkillPause = Type.Object({
  paused_at: Type.String({ format: 'date-time' }),
  paused_by: Type.String({
    description: "The caller (an admin, or the owner of the id's namespace) who paused it.",
  }),
});
export type SkillPause = Static<typeof SkillPause>;

/**
 * What POST /skills/{id}/pause and /resume answer (ours): whether the skill is paused now. While it
 * is, its executions are accepted and wait (status `accepted`), none starts, and those running finish.
 */
export const SkillPauseState = Type.Object({
  skill_id: Type.String(),
  paused: Type.Boolean(),
  paused_at: Type.Optional(SkillPause.properties.paused_at),
  paused_by: Type.Optional(SkillPause.properties.paused_by),
});
export type SkillPauseState = Static<typeof SkillPauseState>;
