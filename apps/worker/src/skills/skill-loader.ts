import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';
import {
  assertApprovalPolicy,
  assertSafeSchema,
  checkMigrations,
  compileTemplates,
  SchemaValidator,
  SkillDefinition,
  SkillError,
  type SkillMode,
  SkillPublication,
  type SkillSchemas,
} from '@skillrun/core';
import semver from 'semver';
import { loadKnowledge } from '../knowledge/load-knowledge';
import { LlmSkillSettings } from '../llm/llm-settings';
import type { CodeModule, LoadedBody, LoadedSkill } from './loaded-skill';
import type { ModuleBundler } from './module-bundler';

/** A skill.json that cannot be hosted; the message names the file and the field. */
export class SkillLoadError extends Error {
  override readonly name = 'SkillLoadError';
}

const definitionValidator = new SchemaValidator(SkillDefinition, 'skill.json');
const publicationValidator = new SchemaValidator(SkillPublication, 'descriptor.json');
const llmSettingsValidator = new SchemaValidator(LlmSkillSettings, 'llm.json');
const ENTRY_FILES = ['index.ts', 'index.js', 'index.mjs'];

/** Finds every skill.json below the given folders (a path-delimited list) and loads each. */
export async function loadSkills(
  folders: string,
  schemas: SkillSchemas,
  bundler: ModuleBundler,
): Promise<LoadedSkill[]> {
  const files = (await Promise.all(folders.split(delimiter).filter(Boolean).map(findSkillFiles))).flat();
  const skills = await Promise.all(files.map((file) => loadSkill(file, schemas, bundler)));
  const byVersion = new Map<string, LoadedSkill>();
  for (const skill of skills) {
    const { name, version } = skill.definition;
    const other = byVersion.get(`${name}@${version}`);
    if (other) {
      throw new SkillLoadError(`${skill.file}: ${name} version ${version} is also defined by ${other.file}`);
    }
    byVersion.set(`${name}@${version}`, skill);
  }
  return [...byVersion.values()].sort(
    (a, b) =>
      a.definition.name.localeCompare(b.definition.name) ||
      semver.compare(a.definition.version, b.definition.version),
  );
}

async function findSkillFiles(folder: string): Promise<string[]> {
  if (!existsSync(folder)) throw new SkillLoadError(`Skills folder ${folder} does not exist`);
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter(
      (entry) => entry.isFile() && entry.name === 'skill.json' && !entry.parentPath.includes('node_modules'),
    )
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export async function loadSkill(
  file: string,
  schemas: SkillSchemas,
  bundler: ModuleBundler,
): Promise<LoadedSkill> {
  const where = relative(process.cwd(), file) || file;
  const raw = await readJson(file, where);
  const definition = guard(where, () => definitionValidator.parse(raw));
  for (const field of ['input', 'output'] as const) {
    guard(where, () => assertSafeSchema(definition[field], `/${field}`));
    guard(where, () => schemas.compile(definition[field]), `field "${field}"`);
  }
  const { approval } = definition;
  if (approval) guard(where, () => assertApprovalPolicy(approval, '/approval'));
  const publication = await loadPublication(join(file, '..', 'descriptor.json'), definition.version);
  const body = await loadBody(definition, join(file, '..'), where, { schemas, bundler });
  return { definition, publication, file, body };
}

interface LoadTools {
  schemas: SkillSchemas;
  bundler: ModuleBundler;
}

/** Loads the body of one kind of hosted skill from its folder, the skill.json beside it read. */
type BodyLoader = (
  definition: SkillDefinition,
  folder: string,
  where: string,
  tools: LoadTools,
) => Promise<LoadedBody>;

/** How the body of each kind of hosted skill is loaded: a skill.json's mode is its kind. */
const bodyLoaders: Record<SkillMode, BodyLoader> = {
  code: async (definition, folder, where, { bundler }) => ({
    kind: 'code',
    code: await loadCode(definition, folder, bundler, { where, what: 'mode "code"' }),
  }),
  llm: (_definition, folder, where) => loadPrompt(folder, where),
  composite: async (definition, folder, where, { bundler }) => {
    if (definition.pipeline) return compilePipeline(definition, where);
    const what = 'a composite without "pipeline"';
    return { kind: 'composite', code: await loadCode(definition, folder, bundler, { where, what }) };
  },
  knowledge: (definition, folder, where, { schemas }) =>
    loadKnowledge(definition, folder, schemas).then(
      (index): LoadedBody => ({ kind: 'knowledge', index }),
      (error: unknown) => {
        throw new SkillLoadError(`${where}: ${(error as Error).message}`);
      },
    ),
  task: () => Promise.resolve({ kind: 'task' }),
};

function loadBody(definition: SkillDefinition, folder: string, where: string, tools: LoadTools) {
  refuseFieldOfOtherKinds(definition, 'pipeline', 'composite', where);
  // An llm skill's "task" has never been refused (its prompt was loaded before the field was checked).
  if (definition.mode !== 'llm') refuseFieldOfOtherKinds(definition, 'task', 'task', where);
  refuseFieldOfOtherKinds(definition, 'stream', 'llm', where);
  return bodyLoaders[definition.mode](definition, folder, where, tools);
}

/** A field of skill.json that only skills of one kind have. */
function refuseFieldOfOtherKinds(
  definition: SkillDefinition,
  field: 'pipeline' | 'task' | 'stream',
  kind: SkillMode,
  where: string,
): void {
  if (definition[field] && definition.mode !== kind) {
    throw new SkillLoadError(`${where}: field "${field}" is only for mode "${kind}"`);
  }
}

/** The module of a code skill, or of a composite written as code (`what` says which, in errors). */
async function loadCode(
  definition: SkillDefinition,
  folder: string,
  bundler: ModuleBundler,
  { where, what }: { where: string; what: string },
): Promise<CodeModule> {
  const entry = ENTRY_FILES.map((name) => join(folder, name)).find((path) => existsSync(path));
  if (!entry) throw new SkillLoadError(`${where}: ${what} needs one of ${ENTRY_FILES.join(', ')} beside it`);
  try {
    const module = await bundler.bundle(`${definition.name}@${definition.version}`, entry);
    return {
      entry,
      module,
      isolation: definition.isolation ?? 'thread',
      ...(definition.memory_mb === undefined ? {} : { memoryMb: definition.memory_mb }),
    };
  } catch (error) {
    const first = (error as { errors?: { text: string }[] }).errors?.[0]?.text ?? (error as Error).message;
    throw new SkillLoadError(`${where}: ${relative(process.cwd(), entry)} does not compile: ${first}`);
  }
}

/** prompt.md is the body of an llm skill; llm.json beside it may change the worker's LLM settings. */
async function loadPrompt(folder: string, where: string): Promise<LoadedBody> {
  const promptFile = join(folder, 'prompt.md');
  if (!existsSync(promptFile)) throw new SkillLoadError(`${where}: mode "llm" needs prompt.md beside it`);
  const prompt = (await readFile(promptFile, 'utf8')).trim();
  if (!prompt) throw new SkillLoadError(`${where}: prompt.md is empty`);
  const settingsFile = join(folder, 'llm.json');
  if (!existsSync(settingsFile)) return { kind: 'llm', prompt, settings: {} };
  const settingsWhere = relative(process.cwd(), settingsFile) || settingsFile;
  const raw = await readJson(settingsFile, settingsWhere);
  return { kind: 'llm', prompt, settings: guard(settingsWhere, () => llmSettingsValidator.parse(raw)) };
}

function compilePipeline(definition: SkillDefinition, where: string): LoadedBody {
  const steps = definition.pipeline ?? [];
  return guard(where, () => ({
    kind: 'composite',
    pipeline: {
      steps: steps.map((step, index) => ({
        step: step.step,
        skill: step.skill,
        ...(step.version === undefined ? {} : { version: step.version }),
        input: compileTemplates(step.input, `/pipeline/${index}/input`),
        ...(step.condition === undefined
          ? {}
          : { condition: compileTemplates(step.condition, `/pipeline/${index}/condition`) }),
        ...(step.context === undefined
          ? {}
          : {
              concurrencyKey: compileTemplates(
                step.context.concurrency_key,
                `/pipeline/${index}/context/concurrency_key`,
              ),
            }),
      })),
      ...(definition.outputMapping === undefined
        ? {}
        : { outputMapping: compileTemplates(definition.outputMapping, '/outputMapping') }),
    },
  }));
}

/** descriptor.json: the descriptor fields skill.json has no room for (optional). */
async function loadPublication(file: string, version: string): Promise<SkillPublication> {
  if (!existsSync(file)) return {};
  const where = relative(process.cwd(), file) || file;
  const raw = await readJson(file, where);
  const publication = guard(where, () => publicationValidator.parse(raw));
  guard(where, () => checkMigrations(version, publication['x-migrations'] ?? [], '/x-migrations'));
  return publication;
}

async function readJson(file: string, where: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new SkillLoadError(`${where}: not valid JSON (${(error as Error).message})`);
  }
}

function guard<T>(where: string, run: () => T, field?: string): T {
  try {
    return run();
  } catch (error) {
    const message = error instanceof SkillError ? error.message : String(error);
    throw new SkillLoadError(`${where}: ${field ? `${field}: ` : ''}${message}`);
  }
}
