import { SkillSearchQuery, VersionQuery } from '@skillrun/core';
import { DEPRECATION_HEADER, errors, json, ok, queryParameters, skillId } from '../http/openapi-parts';

/** The paths of skills: searching and reading their descriptors, registering, deprecating and forgetting versions, pausing. */
export const skillPaths = {
  '/skills': {
    get: {
      operationId: 'searchSkills',
      summary: 'Search skills (latest version of each), a page at a time',
      tags: ['discovery'],
      parameters: queryParameters(SkillSearchQuery),
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'SkillSearchPage'),
        ...errors('400', '503'),
      },
    },
    post: {
      operationId: 'registerSkill',
      summary: 'Register a version of a skill hosted elsewhere',
      tags: ['registry'],
      requestBody: { required: true, content: json('SkillDescriptor') },
      responses: {
        '201': ok('Registered.', 'SkillDescriptor'),
        '200': ok('This exact version was already registered with the same content.', 'SkillDescriptor'),
        ...errors('400', '401', '403', '409', '413', '415', '503'),
      },
    },
  },
  '/skills/{skill_id}': {
    get: {
      operationId: 'getSkill',
      summary: "A skill's descriptor: the latest version, or the best one in a semver range",
      tags: ['discovery'],
      parameters: [skillId, ...queryParameters(VersionQuery)],
      responses: {
        '200': ok('The Skill Descriptor (spec 000).', 'SkillDescriptor', DEPRECATION_HEADER),
        ...errors('400', '404', '503'),
      },
    },
  },
  '/skills/{skill_id}/SKILL.md': {
    get: {
      operationId: 'getSkillMd',
      summary:
        'A skill as an Agent Skills SKILL.md: the latest version, or the best one in a semver range (ours)',
      description:
        "The descriptor GET /skills/{skill_id} answers, as the Agent Skills format (agentskills.io) has it: YAML frontmatter (`name`: the id lower-cased, each run of other characters than letters and digits one `-`, cut to 64 with a hash; `description`, at most 1024 characters; `metadata`: the id and version), then Markdown: what it does, its inputs (a table, and the input schema), its output, an example, the errors an invocation may meet and how to call it (the MCP tool, POST invoke with curl, GET status). Who may read it: as for the descriptor. The same document is the skill's `skill://<name>/SKILL.md` over MCP (revision 2026-07-28, the skills extension).",
      tags: ['discovery'],
      parameters: [skillId, ...queryParameters(VersionQuery)],
      responses: {
        '200': {
          description: 'The SKILL.md.',
          headers: DEPRECATION_HEADER,
          content: { 'text/markdown': { schema: { type: 'string' } } },
        },
        ...errors('400', '404', '503'),
      },
    },
  },
  '/skills/{skill_id}/versions': {
    get: {
      operationId: 'listVersions',
      summary: 'Every available version of a skill, highest first',
      tags: ['discovery'],
      parameters: [skillId],
      responses: { '200': ok('The versions.', 'SkillVersionList'), ...errors('404', '503') },
    },
  },
  '/skills/{skill_id}/credentials': {
    put: {
      operationId: 'setProviderCredentials',
      summary: "Set what this service presents to a registered skill's provider (ours)",
      description:
        "For a skill registered from elsewhere (all its versions): its provider's api_key, or an OAuth 2 client (client_id, client_secret) for the client credentials grant at its token_url; `caller_id` is the caller these credentials are at the provider. Stored encrypted with PROVIDER_SECRETS_KEY (501 NOT_CONFIGURED without it), sent to that provider only, and never shown again. Needs the admin role (or scope) or, for a credential without a role, the skill id's namespace.",
      tags: ['registry'],
      parameters: [skillId],
      requestBody: { required: true, content: json('ProviderCredentials') },
      responses: {
        '204': { description: 'Set.' },
        ...errors('400', '401', '403', '404', '415', '501', '503'),
      },
    },
    delete: {
      operationId: 'removeProviderCredentials',
      summary: "Remove the credentials for a registered skill's provider (ours)",
      tags: ['registry'],
      parameters: [skillId],
      responses: { '204': { description: 'Removed.' }, ...errors('401', '403', '404', '501', '503') },
    },
  },
  '/skills/{skill_id}/pause': {
    post: {
      operationId: 'pauseSkill',
      summary: 'Pause a skill: its executions are accepted and wait, none starts (ours)',
      description:
        "Holds every version of a skill hosted here, versions advertised later included (BullMQ's pause of each of their queues). Invocations are still accepted (202) and wait with status `accepted`; none starts, and those running finish. Idempotent: pausing a paused skill answers it as it is (when and by whom it was first paused). Needs the operator or admin role, or, for a credential without a role, the skill id's namespace. 409 SKILL_VERSION_CONFLICT for a skill registered from elsewhere (it runs at its provider). Admins see `x-paused` in its descriptor; the gateways export `skillrun_skill_paused`.",
      tags: ['registry'],
      parameters: [skillId],
      responses: {
        '200': ok('Paused.', 'SkillPauseState'),
        ...errors('401', '403', '404', '409', '503'),
      },
    },
  },
  '/skills/{skill_id}/resume': {
    post: {
      operationId: 'resumeSkill',
      summary: 'Resume a paused skill: its waiting executions start (ours)',
      description:
        'Lets every version of the skill run again: the workers hosting it take its waiting executions at once. Idempotent: resuming a skill that is not paused answers `paused: false`. Who may: as for pausing.',
      tags: ['registry'],
      parameters: [skillId],
      responses: {
        '200': ok('Not paused.', 'SkillPauseState'),
        ...errors('401', '403', '404', '409', '503'),
      },
    },
  },
  '/skills/{skill_id}/approval': {
    parameters: [skillId],
    get: {
      operationId: 'getSkillApproval',
      summary: "A skill's approval policy, as an operator set it (ours)",
      description:
        "Needs the admin scope. `approval` null: each version's own (skill.json `approval`) applies, if any.",
      tags: ['registry'],
      responses: { '200': ok('The policy.', 'SkillApprovalState'), ...errors('401', '403', '404', '503') },
    },
    put: {
      operationId: 'setSkillApproval',
      summary: 'Require an approval before executions of a skill run, without a new version (ours)',
      description:
        'An operator\'s policy `{when, approvers, timeout_ms}` for every version of the skill, which wins over each version\'s own; `{"approval": null}` removes it. New invocations (within SKILL_CACHE_MS) whose inputs match `when` wait with status `awaiting_approval` until an approver decides (POST /approvals/{execution_id}/approve or /reject). A rule that does not parse is 400 naming `/approval/when`. Needs the admin scope.',
      tags: ['registry'],
      requestBody: { required: true, content: json('SkillApprovalUpdate') },
      responses: {
        '200': ok('The policy now.', 'SkillApprovalState'),
        ...errors('400', '401', '403', '404', '415', '503'),
      },
    },
  },
  '/skills/{skill_id}/versions/{version}/deprecation': {
    parameters: [skillId, { name: 'version', in: 'path', required: true, schema: { type: 'string' } }],
    put: {
      operationId: 'deprecateVersion',
      summary: 'Deprecate a version (it still runs, and ranges prefer other versions)',
      tags: ['registry'],
      requestBody: { required: false, content: json('DeprecationRequest') },
      responses: {
        '200': ok('The version.', 'SkillVersionSummary'),
        ...errors('400', '401', '403', '404', '415', '503'),
      },
    },
    delete: {
      operationId: 'undeprecateVersion',
      summary: 'Withdraw a deprecation',
      tags: ['registry'],
      responses: {
        '200': ok('The version.', 'SkillVersionSummary'),
        ...errors('400', '401', '403', '404', '503'),
      },
    },
  },
  '/skills/{skill_id}/versions/{version}/dormancy': {
    parameters: [skillId, { name: 'version', in: 'path', required: true, schema: { type: 'string' } }],
    delete: {
      operationId: 'forgetDormantVersion',
      summary: 'Forget a hosted version whose pool scales to zero, once the pool is gone (ours)',
      description:
        'A hosted version whose workers run with WORKER_SCALE_TO_ZERO stays invocable while none is alive (dormant: `x-dormant` in its descriptor, `dormant` in its versions), its executions waiting for a worker to start. Once its pool is deleted, this takes the mark away: without a worker the version is then unavailable (404 SKILL_NOT_FOUND), as any hosted version is; executions already queued wait, or end at their queue timeout. Admin only. 409 SKILL_VERSION_CONFLICT while a worker holds a live lease on it (it would mark it again); 404 when it is not marked.',
      tags: ['registry'],
      responses: {
        '204': { description: 'Forgotten.' },
        ...errors('400', '401', '403', '404', '409', '503'),
      },
    },
  },
};
