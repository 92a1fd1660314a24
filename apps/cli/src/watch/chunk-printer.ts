import type { Terminal } from '../terminal';

/**
 * Prints the chunks of output a skill streams, on stdout, as they come: a text chunk as it is
 * (pieces of one text, as an llm skill's deltas are, run on), any other as one line of JSON. A JSON
 * line, or what follows the stream, starts on a line of its own.
 */
export class ChunkPrinter {
  private midLine = false;
  private printed = false;

  constructor(private readonly terminal: Terminal) {}

  /** Whether any chunk was printed. */
  get any(): boolean {
    return this.printed;
  }

  print(chunk: unknown): void {
    this.printed = true;
    if (typeof chunk === 'string') {
      if (chunk === '') return;
      this.terminal.print(chunk);
      this.midLine = !chunk.endsWith('\n');
      return;
    }
    this.endLine();
    this.terminal.out(JSON.stringify(chunk));
  }

  /** Ends a line of text left open, so that what follows starts on its own. */
  endLine(): void {
    if (this.midLine) this.terminal.out();
    this.midLine = false;
  }
}
