import type { Cluster, Redis } from 'ioredis';

/** Per connection holding its writes this turn, what is to be written just before they go out. */
const held = new WeakMap<Redis, (() => void)[]>();

/**
 * Holds the connection's writes until the end of this turn of the event loop, so that the commands
 * issued in it (every request read in it joins) reach Redis in one write instead of one system call
 * each. On a loaded gateway a write to the socket cost about as much as a whole command's encoding:
 * an invocation's record and job went out as two; Redis pays as much again to read them one by
 * one. Order is kept (they only wait in Node's buffer), and so are the round trips. A cluster client
 * holds the writes to each of its masters.
 */
export function coalesceWrites(redis: Redis): void {
  if (held.has(redis)) return;
  const sockets = socketsOf(redis);
  if (sockets.length === 0) return;
  for (const socket of sockets) socket.cork();
  const sends: (() => void)[] = [];
  held.set(redis, sends);
  setImmediate(() => {
    held.delete(redis);
    for (const send of sends) send();
    for (const socket of sockets) socket.uncork();
  });
}

/**
 * Runs `send` at the end of this turn, just before the writes coalesceWrites holds go out, so that
 * the commands it issues join them (the execution index: one RPUSH for the ids of many invocations,
 * in the same write as their records and jobs, as an RPUSH each was). False, and nothing kept, when
 * this connection holds no writes now.
 */
export function joinHeldWrites(redis: Redis, send: () => void): boolean {
  const sends = held.get(redis);
  sends?.push(send);
  return sends !== undefined;
}

/** The sockets the connection writes its commands to now: a cluster client's, one per master. */
function socketsOf(redis: Redis): Redis['stream'][] {
  const connections = redis.isCluster ? (redis as unknown as Cluster).nodes('master') : [redis];
  const sockets: Redis['stream'][] = [];
  for (const connection of connections) {
    // Absent until the connection first connects.
    const socket = (connection as Partial<Pick<Redis, 'stream'>>).stream;
    if (socket && connection.status === 'ready') sockets.push(socket);
  }
  return sockets;
}
