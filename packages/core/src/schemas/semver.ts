import { Type } from '@sinclair/typebox';

/** A Semantic Versioning 2.0.0 version, e.g. 2.1.0 or 1.0.0-rc.1. */
export const SemVer = Type.String({
  pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$',
  maxLength: 64,
  description: 'Semantic version, e.g. 2.1.0',
});

/** A semver range as npm reads it (`^2`, `~1.4.0`, `>=1.0.0 <3`); commas as in `>=3.0.0,<4.0.0` also mean "and". */
export const VersionRange = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'A semver range, e.g. ^2.0.0, ~1.4, >=1.0.0 <3.0.0 or >=3.0.0,<4.0.0',
});
