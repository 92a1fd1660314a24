import { SkillError } from '@skillrun/core';

/**
 * Takes from a sandbox thread's skills the calls that would end the whole worker rather than its
 * thread: signalling the worker's own process (or its group) and aborting it. Each now throws, so
 * the skill that tried fails alone with ACCESS_DENIED (not retried), and the worker goes on.
 * Signals to other processes (children a skill started) still work. `process.exit` is left as Node
 * makes it in a thread (it ends the thread only, and Node's own handling of an uncaught error in a
 * thread calls it). A skill determined to escape a thread can; this keeps the ordinary ways from
 * taking the worker down (a child process is the isolation for that).
 */
export function guardProcess(target: NodeJS.Process = process): void {
  const ownKill = target.kill.bind(target);
  const refuse = (what: string) => {
    throw new SkillError('ACCESS_DENIED', `${what} is not allowed in a skill: it would stop the worker`);
  };
  target.kill = (pid: number, signal?: string | number) => {
    if (pid === target.pid || pid === target.ppid || pid <= 0) refuse(`process.kill(${pid})`);
    return ownKill(pid, signal);
  };
  target.abort = () => refuse('process.abort()');
  // What process.kill calls underneath.
  Object.assign(target, { _kill: () => refuse('process._kill()') });
}
