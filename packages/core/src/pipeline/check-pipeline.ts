import type { PipelineStep, SkillDefinition } from '../schemas/skill-definition';
import { pointerToken } from '../validation/pointer-token';
import { checkAgainstSchema, type Destination } from './check-against-schema';
import { compileTemplates } from './compile-templates';
import { type CompiledValue, expressionsOf } from './compiled-value';
import { inferSchema, type SchemaScope, type SchemaSource } from './infer-schema';
import type { JsonSchema } from './json-type';
import { expressionError, pipelineError } from './pipeline-error';
import { isReservedName, STEP_NAME } from './template-name';

/** What a pipeline needs to know of a skill it calls. */
export interface SkillSignature {
  readonly input: JsonSchema;
  readonly output: JsonSchema;
}

/**
 * Checks a declarative pipeline when its skill is loaded, so that its author hears of mistakes
 * then rather than at the first run: step names, the skills called, template syntax, references
 * to earlier steps only, and, where the schemas tell, the fields read and the types passed.
 * Throws a SkillError (INVALID_INPUT) naming the step and field, with the pointer in `details`.
 */
export function checkPipeline(
  definition: SkillDefinition,
  lookup: (skill: string) => SkillSignature | undefined,
): void {
  const { pipeline } = definition;
  if (pipeline === undefined) return;
  if (definition.mode !== 'composite') {
    throw pipelineError(
      '/pipeline',
      `pipeline: only a composite skill has one, and mode is "${definition.mode}"`,
    );
  }
  if (pipeline.length === 0) throw pipelineError('/pipeline', 'pipeline: it has no steps');
  const names = pipeline.map(({ step }) => step);
  const input = { schema: definition.input, owner: `the input of ${quote(definition.name)}` };
  const earlier = new Map<string, SchemaSource>();
  pipeline.forEach((step, index) => {
    const signature = checkStepCall(definition, step, index, earlier, lookup);
    const scope = { input, steps: new Map(earlier) };
    const at = `/pipeline/${index}`;
    const subject = `step ${quote(step.step)}`;
    const references = { names, current: step.step };
    const inputs = compileFields(step.input, { path: `${at}/input`, subject: `${subject} input` });
    checkReferences(inputs, scope, references);
    checkAgainstSchema(inputs, signature.input, scope, {
      path: `${at}/input`,
      subject: `${subject} input`,
      owner: `the input of ${quote(step.skill)}`,
    });
    if (step.condition !== undefined) {
      const condition = compileTemplates(step.condition, `${at}/condition`, `${subject} condition`);
      checkReferences(condition, scope, references);
      for (const expression of expressionsOf(condition)) inferSchema(expression, scope);
    }
    if (step.context !== undefined) {
      const where = `${at}/context/concurrency_key`;
      const key = compileTemplates(step.context.concurrency_key, where, `${subject} concurrency_key`);
      checkReferences(key, scope, references);
      for (const expression of expressionsOf(key)) inferSchema(expression, scope);
    }
    earlier.set(step.step, { schema: signature.output, owner: `the output of ${quote(step.skill)}` });
  });
  definition.calls.forEach((skill, index) => {
    if (lookup(skill) === undefined) {
      throw pipelineError(`/calls/${index}`, `calls: ${quote(skill)} does not exist`);
    }
  });
  if (definition.outputMapping !== undefined) {
    const destination = {
      path: '/outputMapping',
      subject: 'outputMapping',
      owner: `the output of ${quote(definition.name)}`,
    };
    const mapping = compileFields(definition.outputMapping, destination);
    const scope = { input, steps: earlier };
    checkReferences(mapping, scope, { names });
    checkAgainstSchema(mapping, definition.output, scope, destination);
  }
}

function checkStepCall(
  definition: SkillDefinition,
  step: PipelineStep,
  index: number,
  earlier: ReadonlyMap<string, SchemaSource>,
  lookup: (skill: string) => SkillSignature | undefined,
): SkillSignature {
  const at = `/pipeline/${index}`;
  const subject = `step ${quote(step.step)}`;
  if (!STEP_NAME.test(step.step) || isReservedName(step.step)) {
    const rule = `a step name matches ${STEP_NAME.source} and is not __proto__, constructor or prototype`;
    throw pipelineError(`${at}/step`, `${subject}: ${rule}`);
  }
  if (earlier.has(step.step)) throw pipelineError(`${at}/step`, `${subject}: an earlier step has this name`);
  const signature = lookup(step.skill);
  if (signature === undefined) {
    throw pipelineError(`${at}/skill`, `${subject} calls ${quote(step.skill)}, which does not exist`);
  }
  if (!definition.calls.includes(step.skill)) {
    throw pipelineError(`${at}/skill`, `${subject} calls ${quote(step.skill)}, which "calls" does not list`);
  }
  return signature;
}

/** Each field compiled on its own, so that messages name it. */
function compileFields(
  fields: Record<string, unknown>,
  { path, subject }: Pick<Destination, 'path' | 'subject'>,
): CompiledValue {
  return {
    kind: 'object',
    entries: Object.entries(fields).map(([key, value]) => [
      key,
      compileTemplates(value, `${path}/${pointerToken(key)}`, `${subject} ${quote(key)}`),
    ]),
  };
}

interface References {
  readonly names: readonly string[];
  /** The step whose input or condition is checked; none for outputMapping. */
  readonly current?: string;
}

/** Templates read only steps that have run before. */
function checkReferences(compiled: CompiledValue, scope: SchemaScope, references: References): void {
  for (const expression of expressionsOf(compiled)) {
    const [name] = expression.path;
    if (expression.root === 'steps' && !scope.steps.has(String(name))) {
      throw expressionError(expression, unreachable(String(name), references));
    }
  }
}

function unreachable(name: string, { names, current }: References): string {
  if (name === current) return `reads step ${quote(name)} itself, which has not run yet`;
  if (names.includes(name)) return `reads step ${quote(name)}, which runs later`;
  return `reads step ${quote(name)}, which this pipeline does not have`;
}

function quote(name: string): string {
  return JSON.stringify(name);
}
