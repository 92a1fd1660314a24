import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './json-schema';
import { SemVer } from './semver';
import { CapabilityType, Deprecation, SkillDescriptor } from './skill-descriptor';

/** GET /skills query: text and filters, with a cursor from the previous page. */
export const SkillSearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 200, description: 'Words to find in name, description or tags.' }),
    ),
    tag: Type.Optional(Type.String({ maxLength: 100 })),
    capability_type: Type.Optional(CapabilityType),
    category: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 400, description: 'next_cursor of the previous page.' })),
  },
  { additionalProperties: false },
);
export type SkillSearchQuery = Static<typeof SkillSearchQuery>;

/** One page of GET /skills: each skill once, as its latest version, in a stable order (by id). */
export const SkillSearchPage = Type.Object({
  skills: Type.Array(SkillDescriptor),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
});
export type SkillSearchPage = Static<typeof SkillSearchPage>;

export const SkillVersionSummary = Type.Object({
  version: SemVer,
  source: StringEnum(['hosted', 'registered']),
  registered_at: Type.String({ format: 'date-time' }),
  deprecated: Type.Optional(Deprecation),
  /** No worker runs it now, and its pool scales to zero: invocable, it waits for a worker to start. */
  dormant: Type.Optional(Type.Literal(true)),
  descriptor_url: Type.String({ format: 'uri' }),
});
export type SkillVersionSummary = Static<typeof SkillVersionSummary>;

/** GET /skills/{id}/versions: every available version, highest first. */
export const SkillVersionList = Type.Object({
  skill_id: Type.String(),
  latest: SemVer,
  versions: Type.Array(SkillVersionSummary),
});
export type SkillVersionList = Static<typeof SkillVersionList>;

export const DeprecationRequest = Type.Object(
  { message: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export type DeprecationRequest = Static<typeof DeprecationRequest>;

/** `?version=RANGE` of GET /skills/{id} and POST /skills/{id}/invoke. */
export const VersionQuery = Type.Object(
  { version: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  { additionalProperties: false },
);
