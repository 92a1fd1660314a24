import { SkillError } from '../errors/skill-error';
import { jsonEqual } from '../pipeline/json-equal';
import { parseLiteral } from '../pipeline/parse-literal';
import { parsePath } from '../pipeline/parse-path';
import { readPath } from '../pipeline/read-path';
import type { PathSegment } from '../pipeline/template-expression';
import { TemplateScanner } from '../pipeline/template-scanner';
import type { ApprovalPolicy } from '../schemas/approval';

const OPERATORS = ['>=', '<=', '==', '!=', '>', '<'] as const;
type Operator = (typeof OPERATORS)[number];

/** An approval policy's `when`, parsed: always, or one comparison of an input with a literal. */
export type ApprovalRule = { always: true } | { path: PathSegment[]; operator: Operator; value: unknown };

/** A rule's problem, for the caller to name the field it came from. */
export class ApprovalRuleError extends Error {}

/**
 * Parses `when`: `always`, or `path op literal` (the pipeline's dotted paths and literals; no
 * expression is ever evaluated as code). Throws ApprovalRuleError saying what is wrong and where.
 */
export function parseApprovalRule(when: string): ApprovalRule {
  if (when.trim() === 'always') return { always: true };
  const scanner = new TemplateScanner(when, 0, (problem) => {
    throw new ApprovalRuleError(`${problem} (at character ${scanner.position + 1} of "${when}")`);
  });
  scanner.skipSpace();
  const path = parsePath(scanner);
  scanner.skipSpace();
  const operator = OPERATORS.find((candidate) => scanner.consume(candidate));
  if (operator === undefined) return scanner.unexpected(`one of ${OPERATORS.join(' ')}`);
  scanner.skipSpace();
  const value = parseLiteral(scanner);
  scanner.skipSpace();
  if (scanner.peek() !== undefined) scanner.unexpected('the end of the rule');
  return { path, operator, value };
}

/**
 * A policy's rule, checked when a skill is published or an operator sets it: INVALID_INPUT naming
 * `field` (the policy's place in the request) when it does not parse.
 */
export function assertApprovalPolicy(policy: ApprovalPolicy, field: string): void {
  try {
    parseApprovalRule(policy.when);
  } catch (error) {
    if (!(error instanceof ApprovalRuleError)) throw error;
    throw new SkillError(
      'INVALID_INPUT',
      `The approval rule "${policy.when}" is not valid: ${error.message}`,
      {
        details: [{ path: `${field}/when`, message: error.message }],
      },
    );
  }
}

/**
 * Whether validated inputs need an approval under `rule`. An ordering compares two numbers or two
 * strings, and is false for anything else (a missing field never asks for an approval, unless the
 * rule is `!=`); equality is JSON equality.
 */
export function needsApproval(rule: ApprovalRule, inputs: unknown): boolean {
  if ('always' in rule) return true;
  const actual = readPath(inputs, rule.path);
  switch (rule.operator) {
    case '==':
      return actual !== undefined && jsonEqual(actual, rule.value);
    case '!=':
      return actual === undefined || !jsonEqual(actual, rule.value);
    default:
      return ordered(actual, rule.operator, rule.value);
  }
}

function ordered(actual: unknown, operator: '>' | '>=' | '<' | '<=', value: unknown): boolean {
  const comparable =
    (typeof actual === 'number' && typeof value === 'number') ||
    (typeof actual === 'string' && typeof value === 'string');
  if (!comparable) return false;
  const a = actual as number | string;
  const b = value as number | string;
  switch (operator) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
  }
}
