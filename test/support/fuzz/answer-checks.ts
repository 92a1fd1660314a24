import { httpStatusOf, isErrorCode } from '@skillrun/core';
import type { RawAnswer } from '../raw-http';
import { type Case, isPlainObject, type Json, json, SEED } from './fuzz-tools';

// What every answer must be

export function problemsWith(answer: RawAnswer, request: Pick<Case, 'expect'>): string[] {
  const problems: string[] = [];
  if (answer.status < 400 || answer.status > 499) problems.push(`status ${answer.status} is not a 4xx`);
  if (request.expect !== undefined && answer.status !== request.expect)
    problems.push(`expected ${request.expect}`);
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) problems.push(`content-type is "${type}"`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  const error = isPlainObject(body) ? body.error : undefined;
  if (!isPlainObject(error) || Object.keys(body as Json).length !== 1)
    return [...problems, 'the body is not {error: {...}}'];
  if (!isErrorCode(error.code)) problems.push(`code ${json(error.code)} is not in ErrorCatalog`);
  else if (httpStatusOf(error.code) !== answer.status)
    problems.push(`code ${error.code} is not HTTP ${answer.status}`);
  if (typeof error.recoverable !== 'boolean') problems.push('recoverable is not a boolean');
  if (typeof error.message !== 'string') problems.push('message is not a string');
  else if (error.message.length > 1000) problems.push(`message is ${error.message.length} chars long`);
  if (/\n\s+at |\.[cm]?[jt]s:\d+:\d+/.test(`${error.message} ${json(error.details)}`))
    problems.push('a stack trace shows');
  return problems;
}

export interface Failure {
  request: Case;
  answer?: RawAnswer;
  problems: string[];
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;

function describeFailure({ request, answer }: Failure): string {
  const headers = request.headers ? ` ${json(request.headers)}` : '';
  const body = request.body === undefined ? '' : ` ${clip(request.body.toString(), 200)}`;
  const got = answer ? `${answer.status} ${clip(answer.text, 300)}` : 'no answer';
  return `${request.method} ${clip(request.path, 200)}${headers}${body}\n    → ${got}`;
}

/** Failures grouped by label and problems, most frequent first, each with its first request. */
export function report(failures: Failure[], total: number): string {
  const groups = new Map<string, Failure[]>();
  for (const failure of failures) {
    const key = `${failure.request.label}: ${failure.problems.join('; ').replace(/\d+ chars/, 'N chars')}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  const sorted = [...groups].sort((a, b) => b[1].length - a[1].length);
  return [
    `${failures.length} of ${total} requests got a wrong answer (seed ${SEED}), ${groups.size} kinds:`,
    ...sorted
      .slice(0, 12)
      .map(([key, each]) => `${each.length} × ${key}\n  e.g. ${describeFailure(each[0] as Failure)}`),
    ...(sorted.length > 12 ? [`... and ${sorted.length - 12} more kinds`] : []),
  ].join('\n');
}
