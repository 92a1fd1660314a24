import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A function that collects the calling thread's garbage at once, fully. Node gives JavaScript V8's
 * `gc` only behind `--expose-gc`, a flag V8 reads when it makes a context: set here, it puts one in
 * a context made for the purpose, and the thread keeps its function. The flag stays set (unsetting
 * it would race with the other threads starting meanwhile): contexts made later, threads started
 * later included, have a `gc` of their own, which lets their code do no more than collect its own
 * garbage.
 */
export function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    // V8 frees dropped ArrayBuffers' memory after a collection, on another thread, and counts it
    // freed when the next collection starts.
    gc();
  };
}
