import { errors, json, ok, skillId } from '../http/openapi-parts';

const caller = {
  name: 'caller',
  in: 'path',
  required: true,
  description: "The caller's id: an API key's caller id, a JWT's subject, or an anonymous caller.id.",
  schema: { type: 'string', maxLength: 256 },
};

const HOW_CHOSEN =
  "An invocation that names a version (`version`, `?version=`) runs it; else a pinned caller runs its pin's range; else, under a ramp, the callers whose bucket (a hash of caller id and skill id into 0–99, so sticky per caller) is below `percent` run the ramped version and the others the latest other version (so a version ramped, or rolled back to 0%, reaches no other unpinned caller). The gateways export `skillrun_invocations_by_version_total{skill,version,chosen_by}`. Changes reach every gateway within SKILL_CACHE_MS. Needs the admin role (or scope).";

/** The paths of a skill's rollout (ours): its ramp and its pinned callers. */
export const rolloutPaths = {
  '/skills/{skill_id}/rollout': {
    parameters: [skillId],
    get: {
      operationId: 'getRollout',
      summary: "A skill's rollout: the version ramped and the callers pinned (ours)",
      description: HOW_CHOSEN,
      tags: ['registry'],
      responses: { '200': ok('The rollout.', 'SkillRollout'), ...errors('401', '403', '404', '503') },
    },
    post: {
      operationId: 'rampVersion',
      summary: "Ramp a version to a share of the skill's unpinned callers (ours)",
      description: `Sets (or replaces) the ramp: \`version\` must be a published version of the skill (400 naming /version otherwise), \`percent\` an integer 0–100. Raising the percent keeps the callers already on the version and adds more. While no worker hosts the version, its share runs the other versions. ${HOW_CHOSEN}`,
      tags: ['registry'],
      requestBody: { required: true, content: json('RolloutRequest') },
      responses: {
        '200': ok('The rollout, ramped.', 'SkillRollout'),
        ...errors('400', '401', '403', '404', '415', '503'),
      },
    },
    delete: {
      operationId: 'rollBack',
      summary: "Roll back: the ramp's share goes to 0, every unpinned caller runs the default version (ours)",
      description:
        'One call; idempotent. The ramped version stays held back from unpinned callers (the ramp stays, at 0%) until another ramp replaces it; pins stay. A skill without a ramp answers as it is.',
      tags: ['registry'],
      responses: {
        '200': ok('The rollout, without a ramp.', 'SkillRollout'),
        ...errors('401', '403', '404', '503'),
      },
    },
  },
  '/skills/{skill_id}/pins/{caller}': {
    parameters: [skillId, caller],
    put: {
      operationId: 'pinCaller',
      summary: 'Pin a caller to a version range of the skill (ours)',
      description: `The caller's invocations that name no version run the best version in \`version\` (a semver range that a published version matches; 400 naming /version otherwise), whatever the ramp. ${HOW_CHOSEN}`,
      tags: ['registry'],
      requestBody: { required: true, content: json('PinRequest') },
      responses: {
        '200': ok('The rollout, with the pin.', 'SkillRollout'),
        ...errors('400', '401', '403', '404', '415', '503'),
      },
    },
    delete: {
      operationId: 'unpinCaller',
      summary: "Take a caller's pin away (ours)",
      description: 'Idempotent.',
      tags: ['registry'],
      responses: {
        '200': ok('The rollout, without the pin.', 'SkillRollout'),
        ...errors('400', '401', '403', '404', '503'),
      },
    },
  },
};
