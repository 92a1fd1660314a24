import { type InputMigration, migrateInputs } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const migration = (steps: InputMigration['steps']): InputMigration[] => [{ from_major: 1, steps }];

describe('migrateInputs', () => {
  it("upgrades spec 002's v1 topics string to v2's array", () => {
    const v1 = { topics: 'AI news', max: 3 };
    expect(migrateInputs(v1, migration([{ op: 'wrap', path: '/topics' }]))).toEqual({
      topics: ['AI news'],
      max: 3,
    });
    expect(v1).toEqual({ topics: 'AI news', max: 3 });
  });

  it('leaves values that already have the new shape alone', () => {
    expect(migrateInputs({ topics: ['a'] }, migration([{ op: 'wrap', path: '/topics' }]))).toEqual({
      topics: ['a'],
    });
  });

  it('renames, sets defaults for absent fields only, removes, and reaches nested fields', () => {
    const steps: InputMigration['steps'] = [
      { op: 'rename', path: '/query', to: '/search/text' },
      { op: 'set', path: '/search/limit', value: 5 },
      { op: 'set', path: '/mode', value: 'fast' },
      { op: 'remove', path: '/legacy' },
    ];
    expect(migrateInputs({ query: 'cats', mode: 'slow', legacy: true }, migration(steps))).toEqual({
      search: { text: 'cats', limit: 5 },
      mode: 'slow',
    });
  });

  it('applies several migrations in order', () => {
    const chain: InputMigration[] = [
      { from_major: 1, steps: [{ op: 'rename', path: '/name', to: '/names' }] },
      { from_major: 2, steps: [{ op: 'wrap', path: '/names' }] },
    ];
    expect(migrateInputs({ name: 'Ada' }, chain)).toEqual({ names: ['Ada'] });
  });

  it('never writes through a prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const steps = [
      { op: 'set', path: '/__proto__/polluted', value: true },
      { op: 'set', path: '/constructor/prototype/polluted', value: true },
      { op: 'rename', path: '/__proto__', to: '/x' },
    ] as InputMigration['steps'];
    const migrated = migrateInputs(hostile, migration(steps));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(migrated)).toBe(Object.prototype);
  });
});
