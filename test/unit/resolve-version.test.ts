import {
  type InputMigration,
  parseVersionRange,
  pickVersion,
  resolveVersion,
  SkillError,
  type VersionCandidate,
} from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const v = (version: string, extra: Partial<VersionCandidate> = {}): VersionCandidate => ({
  version,
  deprecated: false,
  migrations: [],
  ...extra,
});
const wrap = (from_major: number, path: string): InputMigration => ({
  from_major,
  steps: [{ op: 'wrap', path }],
});

describe('pickVersion', () => {
  const versions = [v('1.0.0'), v('1.4.2'), v('2.0.0'), v('2.1.0', { deprecated: true }), v('3.0.0-rc.1')];

  it('answers the latest release that is not deprecated when no range is named', () => {
    expect(pickVersion(versions, undefined)).toBe('2.0.0');
  });

  it('answers the best version that satisfies a range, deprecated ones only when nothing else does', () => {
    expect(pickVersion(versions, parseVersionRange('^1', '/v'))).toBe('1.4.2');
    expect(pickVersion(versions, parseVersionRange('~1.0', '/v'))).toBe('1.0.0');
    expect(pickVersion(versions, parseVersionRange('2.1.0', '/v'))).toBe('2.1.0');
    expect(pickVersion(versions, parseVersionRange('>=2.0.0,<3.0.0', '/v'))).toBe('2.0.0');
    expect(pickVersion(versions, parseVersionRange('^3.0.0-rc.0', '/v'))).toBe('3.0.0-rc.1');
    expect(pickVersion(versions, parseVersionRange('^4', '/v'))).toBeUndefined();
  });

  it('falls back to a deprecated or prerelease version when that is all there is', () => {
    expect(pickVersion([v('1.0.0', { deprecated: true }), v('0.9.0', { deprecated: true })], undefined)).toBe(
      '1.0.0',
    );
    expect(pickVersion([v('2.0.0-beta.1')], undefined)).toBe('2.0.0-beta.1');
    expect(pickVersion([], undefined)).toBeUndefined();
  });
});

describe('resolveVersion', () => {
  it('needs no migration when the range matches', () => {
    expect(
      resolveVersion([v('1.2.0'), v('2.0.0', { migrations: [wrap(1, '/a')] })], '>=1.0.0 <2.0.0-0', []),
    ).toEqual({
      version: '1.2.0',
      migrations: [],
    });
  });

  it("runs a later major that declares how the requested major's inputs are upgraded", () => {
    const two = v('2.3.0', { migrations: [wrap(1, '/topics')] });
    expect(resolveVersion([two], parseVersionRange('^1.0.0', '/v'), [two])).toEqual({
      version: '2.3.0',
      migrations: [wrap(1, '/topics')],
    });
  });

  it('chains migrations across majors, using versions that are no longer available', () => {
    const two = v('2.0.0', { migrations: [wrap(1, '/a')] });
    const three = v('3.1.0', { migrations: [wrap(2, '/b')] });
    const resolution = resolveVersion([three], parseVersionRange('^1', '/v'), [two, three]);
    expect(resolution).toEqual({ version: '3.1.0', migrations: [wrap(1, '/a'), wrap(2, '/b')] });
  });

  it('answers null when no migration path exists', () => {
    const three = v('3.0.0', { migrations: [wrap(2, '/b')] });
    expect(resolveVersion([three], parseVersionRange('^1', '/v'), [three])).toBeNull();
    expect(resolveVersion([], parseVersionRange('^1', '/v'), [])).toBeNull();
  });
});

describe('parseVersionRange', () => {
  it("reads npm ranges and spec 002's comma form", () => {
    expect(parseVersionRange('>=3.0.0,<4.0.0', '/v')).toBe('>=3.0.0 <4.0.0');
    expect(parseVersionRange('^2', '/v')).toBe('>=2.0.0 <3.0.0-0');
  });

  it('refuses what is not a range with INVALID_INPUT naming the path', () => {
    for (const text of ['banana', '>>1', 'x'.repeat(300)]) {
      const error = (() => {
        try {
          parseVersionRange(text, '/version');
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(SkillError);
      expect((error as SkillError).toBody()).toMatchObject({
        code: 'INVALID_INPUT',
        details: [{ path: '/version' }],
      });
    }
  });
});
