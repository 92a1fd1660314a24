import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * Compiles a JSON Schema `pattern` (ECMA-262 syntax, Unicode mode) for RE2, which matches in time
 * linear in the input, so no pattern can backtrack catastrophically on a hostile string. Throws,
 * naming the pattern, when it is not a regular expression or uses what RE2 cannot run in linear
 * time (lookaround, backreferences). RE2's `\s` and `.` are ASCII-minded where JavaScript's are not.
 */
export function compileLinearRegExp(pattern: string): RegExpLike {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${message(error)}`,
    );
  }
  // RE2JS's translation turns `\k<name>`, `\8` and `\9` into plain letters; after the check above
  // they can only be backreferences.
  if (hasBackreferenceEscape(pattern)) throw unsupported(pattern, 'backreference');
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw unsupported(pattern, message(error));
  }
}

/** The engine for ajv's `code.regExp` option; ajv reads `code` only when generating standalone code. */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => compileLinearRegExp(pattern), {
  code: 'compileLinearRegExp',
});

function hasBackreferenceEscape(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    i++;
    const next = pattern[i];
    if (next === 'k' || next === '8' || next === '9') return true;
  }
  return false;
}

function unsupported(pattern: string, reason: string): Error {
  return new Error(
    `pattern ${JSON.stringify(pattern)} uses syntax the linear-time engine does not support, ` +
      `e.g. lookaround or backreferences (${reason})`,
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
