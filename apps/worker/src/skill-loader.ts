import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';
import { SchemaValidator, SkillDefinition, SkillError, type SkillSchemas } from '@skillrun/core';
import type { ModuleBundler } from './module-bundler';

export interface LoadedSkill {
  definition: SkillDefinition;
  /** The skill.json file it came from. */
  file: string;
  /** The source module that exports `execute(input, ctx)`. */
  entry: string;
  /** That module compiled to one ES module, which threads load. */
  module: string;
}

/** A skill.json that cannot be hosted; the message names the file and the field. */
export class SkillLoadError extends Error {
  override readonly name = 'SkillLoadError';
}

const definitionValidator = new SchemaValidator(SkillDefinition, 'skill.json');
const ENTRY_FILES = ['index.ts', 'index.js', 'index.mjs'];

/** Finds every skill.json below the given folders (a path-delimited list) and loads each. */
export async function loadSkills(
  folders: string,
  schemas: SkillSchemas,
  bundler: ModuleBundler,
): Promise<LoadedSkill[]> {
  const files = (await Promise.all(folders.split(delimiter).filter(Boolean).map(findSkillFiles))).flat();
  const skills = await Promise.all(files.map((file) => loadSkill(file, schemas, bundler)));
  const byName = new Map<string, LoadedSkill>();
  for (const skill of skills) {
    const other = byName.get(skill.definition.name);
    if (other) {
      throw new SkillLoadError(
        `${skill.file}: name "${skill.definition.name}" is also used by ${other.file}`,
      );
    }
    byName.set(skill.definition.name, skill);
  }
  return [...byName.values()].sort((a, b) => a.definition.name.localeCompare(b.definition.name));
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
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new SkillLoadError(`${where}: not valid JSON (${(error as Error).message})`);
  }
  const definition = guard(where, () => definitionValidator.parse(raw));
  guard(where, () => schemas.compile(definition.input), 'field "input"');
  guard(where, () => schemas.compile(definition.output), 'field "output"');
  if (definition.mode !== 'code') {
    throw new SkillLoadError(
      `${where}: field "mode" is "${definition.mode}", which this worker cannot run yet (only "code")`,
    );
  }
  const folder = join(file, '..');
  const entry = ENTRY_FILES.map((name) => join(folder, name)).find((path) => existsSync(path));
  if (!entry) {
    throw new SkillLoadError(`${where}: mode "code" needs one of ${ENTRY_FILES.join(', ')} beside it`);
  }
  try {
    return { definition, file, entry, module: await bundler.bundle(definition.name, entry) };
  } catch (error) {
    const first = (error as { errors?: { text: string }[] }).errors?.[0]?.text ?? (error as Error).message;
    throw new SkillLoadError(`${where}: ${relative(process.cwd(), entry)} does not compile: ${first}`);
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
