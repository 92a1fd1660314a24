import semver from 'semver';
import { SkillError } from '../errors/skill-error';

/**
 * Reads a semver range as npm does, plus the comma form of spec 002 (`>=3.0.0,<4.0.0`), and answers
 * the normalised range, or throws INVALID_INPUT naming where it came from.
 */
export function parseVersionRange(text: string, path: string): string {
  const range = semver.validRange(text.replaceAll(',', ' '));
  if (range === null || text.length > 256) {
    throw new SkillError('INVALID_INPUT', `"${text.slice(0, 64)}" is not a semver range`, {
      details: [{ path, message: 'must be a semver range such as ^2.0.0, ~1.4 or >=1.0.0 <3.0.0' }],
      suggestedAction: 'Name a version range, or leave it out to use the latest version',
    });
  }
  return range;
}
