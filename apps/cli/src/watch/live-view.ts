import { clearLine, moveCursor } from 'node:readline';
import type { Execution } from '@skillrun/client';
import { SingleBar } from 'cli-progress';
import { styledStatus } from '../format/status-style';
import type { Terminal } from '../terminal';

/** Shows an execution's states as they come, on stderr (stdout is for its output). */
export interface LiveView {
  update(execution: Execution): void;
  /** The last state: the view stops drawing. */
  end(execution?: Execution): void;
  /** The skill streams output to the terminal: a view drawn in place there stops drawing. */
  giveWay(): void;
}

/**
 * On a terminal, a status line and a progress bar drawn from the skill's `progress` (0–100); else
 * one plain line per change of status or progress; with --json nothing (scripts read stdout).
 */
export function createLiveView(terminal: Terminal, label: string, json: boolean): LiveView {
  if (json) return { update() {}, end() {}, giveWay() {} };
  return terminal.errInteractive ? new ProgressBarView(terminal, label) : new PlainLinesView(terminal, label);
}

class ProgressBarView implements LiveView {
  private readonly bar: SingleBar;
  private started = false;
  /** Gave way to streamed output: draws nothing more. */
  private quiet = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly label: string,
  ) {
    this.bar = new SingleBar({
      stream: process.stderr,
      format: `{status} {bar} {percentage}% | {label} | {duration_formatted}`,
      barCompleteChar: '█',
      barIncompleteChar: '░',
      barsize: 30,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      // Redraws between events too, so the time watched moves.
      fps: 5,
      etaBuffer: 1,
      // The bar's own width check reads stdout; the view draws on stderr.
      linewrap: false,
      autopadding: true,
      forceRedraw: true,
    });
  }

  update(execution: Execution): void {
    if (this.quiet) return;
    const payload = {
      status: styledStatus(this.terminal, execution.status.padEnd(9), 'err'),
      label: this.label,
    };
    const value =
      execution.status === 'completed' ? 100 : Math.min(100, Math.max(0, execution.progress ?? 0));
    if (!this.started) {
      this.started = true;
      this.bar.start(100, value, payload);
    } else {
      this.bar.update(value, payload);
    }
  }

  /**
   * A completed execution keeps its full bar; any other end drops it (its percentage would be
   * stale), leaving the line to the error that follows.
   */
  end(execution?: Execution): void {
    if (execution) this.update(execution);
    if (!this.started || this.quiet) return;
    this.bar.stop();
    if (execution?.status === 'completed') return;
    this.clear();
  }

  /** The bar, redrawn in place, would write over the output: it goes, for good. */
  giveWay(): void {
    if (this.quiet) return;
    this.quiet = true;
    if (!this.started) return;
    this.bar.stop();
    this.clear();
  }

  private clear(): void {
    // The bar ends with a newline: the line above is the bar's.
    moveCursor(process.stderr, 0, -1);
    clearLine(process.stderr, 0);
  }
}

class PlainLinesView implements LiveView {
  private last = '';

  constructor(
    private readonly terminal: Terminal,
    private readonly label: string,
  ) {}

  update(execution: Execution): void {
    const progress = execution.progress === undefined ? '' : ` ${execution.progress}%`;
    const line = `${execution.status}${progress}`;
    if (line === this.last) return;
    this.last = line;
    this.terminal.err(`${this.label}: ${line}`);
  }

  end(execution?: Execution): void {
    if (execution) this.update(execution);
  }

  /** Whole lines on stderr do not get in the way of the output. */
  giveWay(): void {}
}
