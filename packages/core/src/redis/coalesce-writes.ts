import type { Redis } from 'ioredis';

/**
 * Holds the connection's writes until the end of this turn of the event loop, so that the commands
 * issued now (and by the promises they start) reach Redis in one write instead of one system call
 * each. On a loaded gateway a write to the socket cost about as much as a whole command's
 * encoding: an invocation's record and job went out as two. Order is kept (they only wait in
 * Node's buffer), and so are the round trips. No-op when the connection has no socket of its own
 * (a cluster client).
 */
export function coalesceWrites(redis: Redis): void {
  const socket = (redis as Partial<Pick<Redis, 'stream'>>).stream;
  if (!socket || redis.status !== 'ready') return;
  socket.cork();
  setImmediate(() => socket.uncork());
}
