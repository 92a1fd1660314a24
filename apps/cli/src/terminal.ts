import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Where the CLI writes: results on stdout, everything else on stderr. Colour and live views only
 * when stdout is a terminal and NO_COLOR is unset (https://no-color.org).
 */
export class Terminal {
  readonly interactive: boolean;
  /** stderr is a terminal: live status and colour there. */
  readonly errInteractive: boolean;
  readonly colour: boolean;
  readonly errColour: boolean;

  constructor(
    readonly stdout: Stream = process.stdout,
    readonly stderr: Stream = process.stderr,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const noColour = (env.NO_COLOR ?? '') !== '' || env.FORCE_COLOR === '0';
    this.interactive = stdout.isTTY === true && env.TERM !== 'dumb';
    this.errInteractive = stderr.isTTY === true && env.TERM !== 'dumb';
    this.colour = this.interactive && !noColour;
    this.errColour = this.errInteractive && !noColour;
  }

  /** The width to fit tables in: the terminal's, or 120 when stdout is a pipe or a file. */
  get columns(): number {
    return this.interactive && this.stdout.columns ? this.stdout.columns : 120;
  }

  out(text = ''): void {
    this.stdout.write(`${text}\n`);
  }

  /** `text` on stdout as it is, with no newline after it. */
  print(text: string): void {
    this.stdout.write(text);
  }

  err(text = ''): void {
    this.stderr.write(`${text}\n`);
  }

  json(value: unknown): void {
    this.out(JSON.stringify(value, null, 2));
  }

  /** `text` in a style, when stdout shows colour. */
  style(style: Style, text: string): string {
    return this.colour ? styleText(style, text) : text;
  }

  /** `text` in a style, when stderr shows colour. */
  errStyle(style: Style, text: string): string {
    return this.errColour ? styleText(style, text) : text;
  }
}
