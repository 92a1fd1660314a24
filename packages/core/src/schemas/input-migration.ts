import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/** A JSON Pointer to a field of the inputs; never through a prototype. */
const InputPointer = Type.String({
  pattern: '^(/[^/]+)+$',
  not: { pattern: '/(__proto__|constructor|prototype)(/|$)' },
  maxLength: 512,
  description: 'JSON Pointer into the inputs, e.g. /topics',
});

/**
 * One declarative edit of old inputs: `rename` moves `path` to `to`, `wrap` turns a single value
 * into a one-element array, `set` gives `path` a value when it is absent, `remove` drops it.
 */
export const MigrationStep = Type.Object(
  {
    op: StringEnum(['rename', 'wrap', 'set', 'remove']),
    path: InputPointer,
    to: Type.Optional(InputPointer),
    value: Type.Optional(Type.Unknown()),
  },
  {
    additionalProperties: false,
    allOf: [
      {
        if: { properties: { op: { const: 'rename' } } },
        then: { properties: { to: true }, required: ['to'] },
      },
      {
        if: { properties: { op: { const: 'set' } } },
        then: { properties: { value: true }, required: ['value'] },
      },
    ],
  },
);
export type MigrationStep = Static<typeof MigrationStep>;

/** How inputs written for major version `from_major` are upgraded to this version (spec 002 section 31.5). */
export const InputMigration = Type.Object(
  {
    from_major: Type.Integer({ minimum: 0, maximum: 100_000 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    steps: Type.Array(MigrationStep, { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);
export type InputMigration = Static<typeof InputMigration>;
