import type { Redis } from 'ioredis';

/** Per connection, what is to be written just before its held writes go out. */
const lastWrites = new WeakMap<Redis, (() => void)[]>();

/**
 * Holds the connection's writes until the end of this turn of the event loop, so that the commands
 * issued in it (every request read in it joins) reach Redis in one write instead of one system call
 * each. On a loaded gateway a write to the socket cost about as much as a whole command's encoding:
 * an invocation's record and job went out as two. Order is kept (they only wait in Node's buffer),
 * and so are the round trips. No-op when the connection has no socket of its own (a cluster
 * client).
 */
export function coalesceWrites(redis: Redis): void {
  const socket = (redis as Partial<Pick<Redis, 'stream'>>).stream;
  if (!socket || redis.status !== 'ready') return;
  socket.cork();
  setImmediate(() => {
    const sends = lastWrites.get(redis);
    if (sends) {
      lastWrites.delete(redis);
      for (const send of sends) send();
    }
    socket.uncork();
  });
}

/**
 * Runs `send` at the end of this turn, just before the writes coalesceWrites holds go out, so that
 * the commands it issues join them (the execution index: one RPUSH for the ids of many invocations,
 * in the same write as their records and jobs, as an RPUSH each was). False, and nothing kept, when
 * this connection holds no writes now.
 */
export function joinHeldWrites(redis: Redis, send: () => void): boolean {
  const socket = (redis as Partial<Pick<Redis, 'stream'>>).stream;
  if (!socket || socket.writableCorked === 0) return false;
  const sends = lastWrites.get(redis);
  if (sends) sends.push(send);
  else lastWrites.set(redis, [send]);
  return true;
}
