import { UsageError } from './cli-error';

/** How the inputs' sources are read (stdin and files), so that tests need neither. */
export interface InputSources {
  readStdin(): Promise<string>;
  readFile(path: string): Promise<string>;
}

const INPUT_HINT =
  'Give the inputs as JSON (\'{"text":"hi"}\'), a file (@inputs.json), - for stdin, or key=value pairs';

/**
 * The inputs of an invocation from `--input` values and positional `key=value` pairs, in order:
 * a JSON object, `@file.json`, `-` (stdin) are merged in; `key=value` sets one field (the value is
 * JSON when it parses as JSON, else the text; `a.b=1` sets a nested field).
 */
export async function parseInputs(values: string[], sources: InputSources): Promise<Record<string, unknown>> {
  const inputs: Record<string, unknown> = {};
  for (const value of values) {
    if (value === '-') {
      Object.assign(inputs, jsonObject(await sources.readStdin(), 'standard input'));
    } else if (value.startsWith('@')) {
      const path = value.slice(1);
      let text: string;
      try {
        text = await sources.readFile(path);
      } catch (error) {
        throw new UsageError(`cannot read the input file ${path}: ${(error as Error).message}`, INPUT_HINT);
      }
      Object.assign(inputs, jsonObject(text, path));
    } else if (value.trimStart().startsWith('{')) {
      Object.assign(inputs, jsonObject(value, '--input'));
    } else if (/^[^=]+=/.test(value)) {
      const at = value.indexOf('=');
      setPath(inputs, value.slice(0, at), jsonOrText(value.slice(at + 1)));
    } else {
      throw new UsageError(`"${value}" is not an input`, INPUT_HINT);
    }
  }
  return inputs;
}

function jsonObject(text: string, from: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the inputs in ${from} are not JSON: ${(error as Error).message}`, INPUT_HINT);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`the inputs in ${from} must be a JSON object`, INPUT_HINT);
  }
  return parsed as Record<string, unknown>;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  if (keys.some((key) => key === '' || UNSAFE_KEYS.has(key))) {
    throw new UsageError(`"${dotted}" is not a field name`, INPUT_HINT);
  }
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}
