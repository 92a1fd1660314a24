import { describe, expect, it } from 'vitest';
import { UsageError } from '../../apps/cli/src/cli-error';
import { parseInputs } from '../../apps/cli/src/input-parser';

const sources = (files: Record<string, string> = {}, stdin = '') => ({
  readStdin: async () => stdin,
  readFile: async (path: string) => {
    const text = files[path];
    if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
    return text;
  },
});

describe('skillrun invoke: inputs from --input and key=value', () => {
  it('merges JSON, a file and stdin in order, key=value last', async () => {
    const inputs = await parseInputs(
      ['{"text":"json","count":1}', '@in.json', '-', 'count=3'],
      sources({ 'in.json': '{"mode":"loud"}' }, '{"text":"stdin"}'),
    );
    expect(inputs).toEqual({ text: 'stdin', count: 3, mode: 'loud' });
  });

  it('reads a value as JSON when it parses as JSON, else as text; dotted keys nest', async () => {
    const inputs = await parseInputs(
      ['n=42', 'flag=true', 'list=[1,2]', 'text=hello world', 'quoted="7"', 'empty=', 'a.b.c=1', 'eq=x=y'],
      sources(),
    );
    expect(inputs).toEqual({
      n: 42,
      flag: true,
      list: [1, 2],
      text: 'hello world',
      quoted: '7',
      empty: '',
      a: { b: { c: 1 } },
      eq: 'x=y',
    });
  });

  it('refuses what is not an input, saying how to give one', async () => {
    for (const bad of [
      ['text'],
      ['{not json'],
      ['[1,2]'],
      ['@missing.json'],
      ['__proto__.x=1'],
      ['a..b=1'],
    ]) {
      const error = await parseInputs(bad, sources()).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(bad)).toBeInstanceOf(UsageError);
      expect((error as UsageError).hint).toMatch(/key=value/);
    }
    expect(Object.prototype).not.toHaveProperty('x');
  });
});
