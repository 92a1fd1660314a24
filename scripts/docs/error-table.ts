import { ErrorCatalog, type ErrorCode, isRetryable } from '@skillrun/core';
import { markdownTable } from './markdown-table';

/**
 * What a worker does on these codes depends on the error at hand (the catalogue says "yes" for
 * the code): the table says on what, in words the catalogue has no field for.
 */
const RETRIED_WHEN: Partial<Record<ErrorCode, string>> = {
  STEP_FAILED: "if the step's error was",
  TOOL_NOT_AVAILABLE: "yes, unless final (a missing setting or export, a provider's 401/403/404)",
};

/** The error catalogue as a table: code, HTTP status, recoverable by default, retried by workers. */
export function errorTable(): string {
  const rows = (Object.keys(ErrorCatalog) as ErrorCode[]).map((code) => {
    const { http, recoverable, summary } = ErrorCatalog[code];
    const retried = isRetryable({ code, message: '', recoverable }) ? 'yes' : 'no';
    return [
      `\`${code}\``,
      String(http),
      recoverable ? 'yes' : 'no',
      retried === 'yes' ? (RETRIED_WHEN[code] ?? retried) : retried,
      summary,
    ];
  });
  return markdownTable(['Code', 'HTTP', 'Recoverable', 'Retried', 'Meaning'], rows);
}
