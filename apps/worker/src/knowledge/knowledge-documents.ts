import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DocumentSource } from './knowledge-query';

/** One document of a knowledge skill, as its file says it. */
export interface KnowledgeDocument {
  id: string;
  source: DocumentSource;
  fields: Record<string, unknown>;
}

/** A document file that cannot be read; the message names the file (and line). */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
}

/** All documents of a skill together, at most: its index lives in every worker that hosts it. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

const READERS: Record<string, (text: string, file: string) => Omit<KnowledgeDocument, 'id'>[]> = {
  '.json': readJson,
  '.jsonl': readJsonLines,
  '.md': readMarkdown,
};

/**
 * Every document under `folder` (JSON: an object or an array of objects; JSONL: an object a line;
 * Markdown: one document a file, its front matter as fields and its text as `content`), in the
 * order of their paths. A document's id is its `id` field, else its path (with its place in the
 * file for JSON and JSONL); ids are unique.
 */
export async function readDocuments(folder: string): Promise<KnowledgeDocument[]> {
  const files = await documentFiles(folder);
  let bytes = 0;
  const documents: KnowledgeDocument[] = [];
  const seen = new Map<string, string>();
  for (const path of files) {
    const file = relative(folder, path);
    bytes += (await stat(path)).size;
    if (bytes > MAX_DOCUMENT_BYTES) {
      throw new DocumentError(`${file}: the documents pass ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB together`);
    }
    const read = READERS[extname(path).toLowerCase()] as (typeof READERS)[string];
    for (const document of read(await readFile(path, 'utf8'), file)) {
      const id = idOf(document);
      const where = `${file}${document.source.index === undefined ? '' : ` #${document.source.index}`}`;
      const other = seen.get(id);
      if (other !== undefined) throw new DocumentError(`${where}: id "${id}" is also the id of ${other}`);
      seen.set(id, where);
      documents.push({ id, ...document });
    }
  }
  return documents;
}

async function documentFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => {
    throw new DocumentError(`the documents folder ${folder} cannot be read`);
  });
  return entries
    .filter((entry) => entry.isFile() && extname(entry.name).toLowerCase() in READERS)
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function idOf({ fields, source }: Omit<KnowledgeDocument, 'id'>): string {
  const { id } = fields;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number') return String(id);
  const path = source.file.replace(/\.[^.]+$/, '');
  return source.index === undefined ? path : `${path}#${source.index}`;
}

function readJson(text: string, file: string): Omit<KnowledgeDocument, 'id'>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new DocumentError(`${file}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) return [{ source: { file }, fields: asObject(parsed, file) }];
  return parsed.map((item, index) => ({
    source: { file, index },
    fields: asObject(item, `${file} #${index}`),
  }));
}

function readJsonLines(text: string, file: string): Omit<KnowledgeDocument, 'id'>[] {
  const documents: Omit<KnowledgeDocument, 'id'>[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new DocumentError(`${file} line ${index + 1}: not JSON: ${(error as Error).message}`);
    }
    documents.push({ source: { file, index }, fields: asObject(parsed, `${file} line ${index + 1}`) });
  });
  return documents;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Front matter (YAML between `---` lines) as fields, the text as `content`, `title` from the first heading if unset. */
function readMarkdown(text: string, file: string): Omit<KnowledgeDocument, 'id'>[] {
  const match = FRONT_MATTER.exec(text);
  let fields: Record<string, unknown> = {};
  if (match) {
    let parsed: unknown;
    try {
      parsed = parseYaml(match[1] ?? '');
    } catch (error) {
      throw new DocumentError(`${file}: its front matter is not YAML: ${(error as Error).message}`);
    }
    fields = parsed === null ? {} : asObject(parsed, `${file}'s front matter`);
  }
  const content = match ? text.slice(match[0].length) : text;
  const heading = /^#\s+(.+)$/m.exec(content)?.[1]?.trim();
  return [{ source: { file }, fields: { ...(heading ? { title: heading } : {}), ...fields, content } }];
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DocumentError(`${where}: a document must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
