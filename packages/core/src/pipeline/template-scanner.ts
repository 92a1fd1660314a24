const SPACE = /\s*/y;

/**
 * A cursor over a template string. Patterns given to `match` must be sticky (`y`), so that they
 * match at the cursor and nowhere else.
 */
export class TemplateScanner {
  constructor(
    readonly text: string,
    public position: number,
    readonly fail: (problem: string) => never,
  ) {}

  peek(): string | undefined {
    return this.text[this.position];
  }

  skipSpace(): void {
    this.match(SPACE);
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text)?.[0];
    if (found !== undefined) this.position += found.length;
    return found;
  }

  consume(literal: string): boolean {
    if (!this.text.startsWith(literal, this.position)) return false;
    this.position += literal.length;
    return true;
  }

  unexpected(expected: string): never {
    const next = this.peek();
    return this.fail(`expected ${expected}, found ${next === undefined ? 'the end' : JSON.stringify(next)}`);
  }
}
