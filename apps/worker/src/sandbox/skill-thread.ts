import { parentPort, workerData } from 'node:worker_threads';
import { SkillError } from '@skillrun/core';
import { guardAllocations } from './allocation-guard';
import { garbageCollector } from './garbage-collector';
import {
  decodeMessages,
  encodeMessages,
  type SkillTask,
  type ThreadCommand,
  type ThreadData,
  type ThreadMessage,
} from './messages';
import { OffHeapLimit } from './off-heap-limit';
import { guardProcess } from './process-guard';
import { SkillRunner } from './run-skill';

/**
 * The entry of a sandbox thread. A thread runs many skill executions at once (they interleave
 * wherever they await), told apart by id; a skill that blocks the thread's event loop (even
 * forever) blocks only this thread, so the worker can still declare the timeout and end it.
 */
const port = parentPort;
if (!port) throw new Error('skill-thread runs inside a worker thread');

guardProcess();
const data = workerData as ThreadData;
const offHeap = new OffHeapLimit({ limitBytes: data.offHeapLimitBytes, collectGarbage: garbageCollector() });
guardAllocations(offHeap);
const runner = new SkillRunner(data.memory, data.stream);
const running = new Map<number, AbortController>();

/**
 * What the thread tells the worker in one turn of its event loop (every task's logs, progress and
 * outcomes, in order) goes in one message at the end of the turn: each message costs a copy and a
 * wake-up of the worker's thread.
 */
let outbox: ThreadMessage[] = [];
function post(message: ThreadMessage): void {
  if (outbox.length === 0) setImmediate(flush);
  outbox.push(message);
}
function flush(): void {
  const messages = outbox;
  outbox = [];
  port?.postMessage(encoded(messages));
}

/** The messages as JSON; a log line whose fields JSON cannot say (a BigInt, a cycle) says so instead. */
function encoded(messages: ThreadMessage[]): string {
  try {
    return encodeMessages(messages);
  } catch {
    return encodeMessages(messages.map(jsonSafe));
  }
}

function jsonSafe(message: ThreadMessage): ThreadMessage {
  try {
    encodeMessages(message);
    return message;
  } catch (error) {
    if (message.type === 'event' && message.event.type === 'log') {
      const { fields: _unsayable, ...event } = message.event;
      return { ...message, event: { ...event, fields: { fields_dropped: (error as Error).message } } };
    }
    throw error;
  }
}

port.on('message', (text: string) => {
  const command = decodeMessages<ThreadCommand>(text);
  if (command.type === 'abort') {
    running.get(command.id)?.abort(new SkillError(command.code, command.reason));
    return;
  }
  for (const { id, task } of command.tasks) start(id, task);
});
/**
 * Node bounds a thread's heap, not the memory it holds outside it; skills' allocations there ask
 * `offHeap` first (guardAllocations). What Node's native code allocates without asking is checked
 * whenever the loop turns: past the limit even once its garbage is collected, the thread tells the
 * pool and ends.
 */
const OFF_HEAP_CHECK_MS = 100;
setInterval(() => {
  const bytes = offHeap.exceeded();
  if (bytes === undefined) return;
  port.postMessage(encodeMessages([{ type: 'over-memory', bytes }] satisfies ThreadMessage[]));
  process.exit(1);
}, OFF_HEAP_CHECK_MS).unref();

// Loading this module takes a while on a busy machine; until now the thread could act on nothing.
post({ type: 'ready' });

function start(id: number, task: SkillTask): void {
  const controller = new AbortController();
  running.set(id, controller);
  void runner
    .run(task, (event) => post({ type: 'event', id, event }), controller.signal)
    .then((outcome) => {
      running.delete(id);
      post({ type: 'outcome', id, outcome });
    });
}
