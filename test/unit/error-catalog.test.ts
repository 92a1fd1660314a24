/*
 * docs/http-api.md documents the error catalogue under the heading "## Error codes" as a markdown
 * table (written by `npm run docs` from the catalogue; test/unit/docs-generated keeps it current), one row per code, the code in backticks in the first cell and its HTTP status in
 * the second:
 *
 *   | Code | HTTP | Meaning |
 *   | --- | --- | --- |
 *   | `INVALID_INPUT` | 400 | The request or its inputs do not match the schema. |
 *   | `MISSING_REQUIRED_PARAM` | 400 | A required parameter is missing. |
 *   | ... one row for every code in ErrorCatalog ... |
 *
 * The drift test below fails when a code is added, removed or re-mapped in one place and not the other.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ErrorCatalog,
  type ErrorCode,
  httpStatusOf,
  isErrorCode,
  isRetryable,
  SkillError,
} from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const HTTP_API = fileURLToPath(new URL('../../docs/http-api.md', import.meta.url));
const ROW = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|/;
/** A row's cells after the code: HTTP, Recoverable, Retried. */
const CELLS = /^\|\s*`[A-Z][A-Z0-9_]*`\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|/;
/** Codes whose retry depends on the error at hand: the page says on what. */
const CONDITIONAL = new Set(['STEP_FAILED', 'TOOL_NOT_AVAILABLE']);

const codes = Object.keys(ErrorCatalog) as ErrorCode[];

/** Each table row whose first cell is a backticked UPPER_CASE code, as [code, status cell]. */
function documentedRows(markdown: string): Array<[string, string]> {
  const section = markdown.split(/^## Error codes\s*$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split(/\r?\n/)
    .map((line) => ROW.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => [match[1] ?? '', match[2] ?? '']);
}

describe('ErrorCatalog', () => {
  it('maps every code to 200 or a 4xx/5xx status', () => {
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) {
      const status = httpStatusOf(code);
      expect(Number.isInteger(status), code).toBe(true);
      expect(status === 200 || (status >= 400 && status <= 599), `${code} -> ${status}`).toBe(true);
    }
  });

  it('has UPPER_SNAKE_CASE codes, each with a summary', () => {
    for (const code of codes) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(ErrorCatalog[code].summary.length, code).toBeGreaterThan(0);
    }
  });

  it('maps the codes the spec pins to their statuses', () => {
    expect(httpStatusOf('INVALID_INPUT')).toBe(400);
    expect(httpStatusOf('SKILL_NOT_FOUND')).toBe(404);
    expect(httpStatusOf('RATE_LIMIT_EXCEEDED')).toBe(429);
    expect(httpStatusOf('INTERNAL_ERROR')).toBe(500);
    expect(httpStatusOf('SERVICE_UNAVAILABLE')).toBe(503);
    expect(httpStatusOf('EXECUTION_TIMEOUT')).toBe(504);
    expect(httpStatusOf('PARTIAL_SUCCESS')).toBe(200);
  });

  it('isErrorCode knows exactly the catalogue codes', () => {
    for (const code of codes) expect(isErrorCode(code)).toBe(true);
    for (const other of ['invalid_input', 'NOPE', 'toString', 'constructor', '', 42, undefined]) {
      expect(isErrorCode(other)).toBe(false);
    }
  });

  it('gives a SkillError the catalogue recoverability unless told otherwise', () => {
    for (const code of codes) {
      expect(new SkillError(code, 'm').recoverable, code).toBe(ErrorCatalog[code].recoverable);
      expect(new SkillError(code, 'm', { recoverable: false }).recoverable, code).toBe(false);
    }
    expect(new SkillError('SOMETHING_CUSTOM', 'm').recoverable).toBe(true);
  });

  it('docs/http-api.md documents exactly the catalogue codes with their HTTP statuses', () => {
    expect(existsSync(HTTP_API), `${HTTP_API} is missing`).toBe(true);
    const rows = documentedRows(readFileSync(HTTP_API, 'utf8'));
    const documentedCodes = rows.map(([code]) => code);
    expect(new Set(documentedCodes).size, 'a code is documented twice').toBe(documentedCodes.length);
    const documented = Object.fromEntries(rows.map(([code, status]) => [code, status]));
    const expected = Object.fromEntries(codes.map((code) => [code, String(httpStatusOf(code))]));
    expect(documented).toEqual(expected);
  });

  it("docs/http-api.md's Recoverable and Retried columns say what the catalogue and the workers do", () => {
    const section =
      readFileSync(HTTP_API, 'utf8')
        .split(/^## Error codes\s*$/m)[1]
        ?.split(/^## /m)[0] ?? '';
    const cells = new Map<string, string[]>();
    for (const line of section.split(/\r?\n/)) {
      const code = ROW.exec(line.trim())?.[1];
      const match = CELLS.exec(line.trim());
      if (code && match) cells.set(code, [match[2] ?? '', match[3] ?? '']);
    }
    for (const code of codes) {
      const { recoverable } = ErrorCatalog[code];
      const [documentedRecoverable, retried] = cells.get(code) ?? [];
      expect(documentedRecoverable, code).toBe(recoverable ? 'yes' : 'no');
      const retriedByDefault = isRetryable({ code, message: '', recoverable });
      if (CONDITIONAL.has(code))
        expect(retried, code).toMatch(retriedByDefault ? /^(yes, unless|if )/ : /^no/);
      else expect(retried, code).toBe(retriedByDefault ? 'yes' : 'no');
    }
  });
});
