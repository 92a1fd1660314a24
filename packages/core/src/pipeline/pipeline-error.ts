import { SkillError } from '../errors/skill-error';
import type { TemplateExpression } from './template-expression';

/** An error in a pipeline or its templates, at a JSON pointer into skill.json. */
export function pipelineError(path: string, message: string): SkillError {
  return new SkillError('INVALID_INPUT', message, { details: [{ path, message }] });
}

/** An error naming the expression and where it was written. */
export function expressionError(expression: TemplateExpression, problem: string): SkillError {
  const { site, text } = expression;
  return pipelineError(site.path, `${site.label}: ${text}: ${problem}`);
}
