import { MAX_METADATA_BYTES, SkillError } from '@skillrun/core';
import type { SkillMetadata } from '@skillrun/skill';
import type { SkillEvent } from './messages';

/**
 * ctx.metadata: the execution's metadata, from what it was launched with, changed by the skill a
 * top-level key at a time. Each change sends the whole object (as JSON) to the worker, which writes
 * it to the record as it writes progress; a change that would leave it over MAX_METADATA_BYTES as
 * JSON (the bound an invocation's context.metadata has) is refused, and nothing changes.
 */
export function skillMetadata(
  launched: Record<string, unknown> | undefined,
  send: (event: SkillEvent) => void,
): SkillMetadata {
  // Never changed in place (a change makes a new object; `current()` gives a copy): not copied
  // here, where most runs would pay a structured clone of it and never read it.
  let current: Record<string, unknown> = launched ?? {};
  const replace = (next: Record<string, unknown>) => {
    const json = JSON.stringify(next);
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_METADATA_BYTES) {
      throw new SkillError(
        'OUTPUT_TOO_LARGE',
        `ctx.metadata would be ${bytes} bytes as JSON, over its ${MAX_METADATA_BYTES}`,
      );
    }
    current = JSON.parse(json) as Record<string, unknown>;
    send({ type: 'metadata', json });
  };
  return {
    current: () => structuredClone(current),
    set(key, value) {
      replace({ ...current, [String(key)]: jsonValue(value) });
    },
    del(key) {
      if (!(key in current)) return;
      const { [key]: _gone, ...rest } = current;
      replace(rest);
    },
  };
}

/** `value` as JSON says it; a value JSON cannot say (undefined, a function, a BigInt, a cycle) is refused. */
function jsonValue(value: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new SkillError(
      'INVALID_OUTPUT',
      `ctx.metadata.set takes a JSON value: ${(error as Error).message}`,
    );
  }
  if (json === undefined) {
    throw new SkillError('INVALID_OUTPUT', `ctx.metadata.set takes a JSON value, not ${typeof value}`);
  }
  return JSON.parse(json);
}
