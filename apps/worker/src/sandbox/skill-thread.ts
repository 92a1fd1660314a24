import { parentPort, workerData } from 'node:worker_threads';
import { SkillError } from '@skillrun/core';
import type { MemoryTarget, SkillEvent, ThreadCommand, ThreadMessage } from './messages';
import { SkillRunner } from './run-skill';

/**
 * The entry of a sandbox thread. A thread runs many skill executions at once (they interleave
 * wherever they await), told apart by id; a skill that blocks the thread's event loop (even
 * forever) blocks only this thread, so the worker can still declare the timeout and end it.
 */
const port = parentPort;
if (!port) throw new Error('skill-thread runs inside a worker thread');

const runner = new SkillRunner(workerData as MemoryTarget);
const running = new Map<number, AbortController>();
const post = (message: ThreadMessage) => port.postMessage(message);

port.on('message', (command: ThreadCommand) => {
  if (command.type === 'abort') {
    running.get(command.id)?.abort(new SkillError('EXECUTION_TIMEOUT', command.reason));
    return;
  }
  const { id, task } = command;
  const controller = new AbortController();
  running.set(id, controller);
  const events = new EventBatch((batch) => post({ type: 'events', id, events: batch }));
  void runner
    .run(task, (event) => events.add(event), controller.signal)
    .then((outcome) => {
      running.delete(id);
      post({ type: 'outcome', id, events: events.take(), outcome });
    });
});

/**
 * A task's events, sent together once the thread's current turn ends (or with the outcome, when the
 * skill ends first): one message instead of one per log line or progress report.
 */
class EventBatch {
  private events: SkillEvent[] = [];

  constructor(private readonly send: (events: SkillEvent[]) => void) {}

  add(event: SkillEvent): void {
    if (this.events.length === 0) setImmediate(() => this.flush());
    this.events.push(event);
  }

  /** The events not sent yet, which then go with the outcome. */
  take(): SkillEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private flush(): void {
    const events = this.take();
    if (events.length > 0) this.send(events);
  }
}
