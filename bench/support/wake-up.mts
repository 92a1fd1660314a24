import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { median } from '../stats.mjs';

/** What handing work to a sleeping thread costs on this machine, in µs (medians or means). */
export interface WakeUpCost {
  /** The sender's time in postMessage to a thread asleep in its event loop (median). */
  senderUs: number;
  /** The same message to a thread busy running code: nothing to wake (median). */
  senderAwakeUs: number;
  /** The CPU the woken thread spends per message it is woken for, its handler doing nothing (mean). */
  wokenUs: number;
}

const MESSAGES = 300;
/** Between messages to the sleeping thread: long enough for it to have gone back to sleep. */
const GAP_MS = 2;
const BUSY_MS = 1000;

/** Time the calling thread has been on a CPU, in ns (Linux: the first field of its schedstat). */
const ON_CPU = `() => Number(require('node:fs').readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0])`;

/**
 * The thread: counts the messages between 'start' and 'end' and answers its CPU per message; for
 * 'busy', keeps its core for BUSY_MS.
 */
const THREAD = `const { parentPort } = require('node:worker_threads');
const onCpu = ${ON_CPU};
let from = 0;
let messages = 0;
parentPort.on('message', (m) => {
  if (m === 'start') { from = onCpu(); messages = 0; return; }
  if (m === 'end') { parentPort.postMessage((onCpu() - from) / messages / 1000); return; }
  if (m === 'busy') { const end = Date.now() + ${BUSY_MS}; while (Date.now() < end); return; }
  messages++;
});`;

function timedPost(thread: Worker, message: string): number {
  const start = performance.now();
  thread.postMessage(message);
  return (performance.now() - start) * 1000;
}

/**
 * What a hand-off to another thread costs, its sender and the thread woken: the sandbox's hop (the
 * worker's main thread to a skill's thread and back) is one each way, and on a virtual machine a
 * thread's sleep and wake-up costs many times what it does on bare metal (every process of the
 * bench pays it whenever it waits for another), so the figure is printed with the machine's.
 */
export async function wakeUpCost(): Promise<WakeUpCost> {
  const thread = new Worker(THREAD, { eval: true });
  try {
    await new Promise((resolve) => thread.once('online', resolve));
    const woken = new Promise<number>((resolve) => thread.once('message', resolve));
    const message = JSON.stringify({ type: 'run', tasks: [{ id: 1 }] });
    thread.postMessage('start');
    const sleeping: number[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      await delay(GAP_MS);
      sleeping.push(timedPost(thread, message));
    }
    thread.postMessage('end');
    const wokenUs = await woken;
    thread.postMessage('busy');
    await delay(20);
    const awake: number[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      awake.push(timedPost(thread, message));
    }
    return { senderUs: median(sleeping), senderAwakeUs: median(awake), wokenUs };
  } finally {
    await thread.terminate();
  }
}
