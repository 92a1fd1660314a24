import { parentPort } from 'node:worker_threads';
import { SkillError } from '@skillrun/core';
import type { ThreadCommand, ThreadMessage } from './messages';
import { SkillRunner } from './run-skill';

/**
 * The entry of a sandbox thread. A thread runs many skill executions at once (they interleave
 * wherever they await), told apart by id; a skill that blocks the thread's event loop (even
 * forever) blocks only this thread, so the worker can still declare the timeout and end it.
 */
const port = parentPort;
if (!port) throw new Error('skill-thread runs inside a worker thread');

const runner = new SkillRunner();
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
  void runner
    .run(task, (event) => post({ type: 'event', id, event }), controller.signal)
    .then((outcome) => {
      running.delete(id);
      post({ type: 'outcome', id, outcome });
    });
});
