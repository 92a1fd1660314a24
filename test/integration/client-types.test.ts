import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('../support/client-typed-skills/usage.ts', import.meta.url));
const tsconfig = fileURLToPath(new URL('../support/client-typed-skills/tsconfig.json', import.meta.url));

/** Type-checks the fixture (its text replaced by `text` when given): each error as `line: code`. */
function typeErrors(text?: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${tsconfig}`);
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    text !== undefined && name === fixture
      ? ts.createSourceFile(name, text, language)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? -1;
    return `${diagnostic.file?.fileName === fixture ? line + 1 : diagnostic.file?.fileName}: TS${diagnostic.code}`;
  });
}

describe('skills typed by generated SkillTypes', () => {
  it('type-checks a right call, and each wrong input or output is an error', () => {
    expect(typeErrors()).toEqual([]);

    const source = readFileSync(fixture, 'utf8');
    const lines = source.split('\n');
    const marked = lines.flatMap((line, index) =>
      line.trim().startsWith('// @ts-expect-error') ? [index + 2] : [],
    );
    expect(marked).toHaveLength(4);
    const unmarked = lines
      .map((line) => (line.trim().startsWith('// @ts-expect-error') ? '' : line))
      .join('\n');
    const errors = typeErrors(unmarked);
    expect(errors.map((error) => Number(error.split(':')[0]))).toEqual(marked);
  });
});
