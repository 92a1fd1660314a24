import type { InputMigration, MigrationStep } from '../schemas/input-migration';

type Json = Record<string, unknown>;

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** Applies declared migrations to a copy of the inputs; the caller's object is left alone. */
export function migrateInputs(inputs: Json, migrations: InputMigration[]): Json {
  if (migrations.length === 0) return inputs;
  const copy = structuredClone(inputs);
  for (const migration of migrations) {
    for (const step of migration.steps) applyStep(copy, step);
  }
  return copy;
}

function applyStep(root: Json, step: MigrationStep): void {
  const at = locate(root, step.path, step.op === 'set' || step.op === 'rename');
  if (!at) return;
  const present = Object.hasOwn(at.parent, at.key);
  switch (step.op) {
    case 'wrap':
      if (present && !Array.isArray(at.parent[at.key])) define(at.parent, at.key, [at.parent[at.key]]);
      return;
    case 'set':
      if (!present) define(at.parent, at.key, structuredClone(step.value));
      return;
    case 'remove':
      delete at.parent[at.key];
      return;
    case 'rename': {
      if (!present || step.to === undefined) return;
      const value = at.parent[at.key];
      delete at.parent[at.key];
      const target = locate(root, step.to, true);
      if (target) define(target.parent, target.key, value);
      return;
    }
  }
}

/** The object holding the last token of `pointer`, creating intermediate objects when asked. */
function locate(root: Json, pointer: string, create: boolean): { parent: Json; key: string } | undefined {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (tokens.some((token) => FORBIDDEN.has(token))) return undefined;
  let parent = root;
  for (const token of tokens.slice(0, -1)) {
    let next = Object.hasOwn(parent, token) ? parent[token] : undefined;
    if (next === undefined && create) {
      next = {};
      define(parent, token, next);
    }
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return undefined;
    parent = next as Json;
  }
  const key = tokens.at(-1);
  return key === undefined ? undefined : { parent, key };
}

function define(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
