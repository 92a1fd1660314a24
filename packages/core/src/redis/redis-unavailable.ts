/**
 * What our own code throws when it knows Redis cannot take a command now without asking it (a
 * connection that refuses commands: see refusesCommands): the same case as the client's errors
 * below, named so that it is told apart from a fault of ours.
 */
export class RedisUnavailable extends Error {
  override readonly name = 'RedisUnavailable';
}

/**
 * Redis's replies (their first word) that say it cannot serve now, not that the command is wrong:
 * a replica or a master without its replicas (READONLY, NOREPLICAS, MASTERDOWN, UNBLOCKED by a role
 * change), starting up (LOADING), a cluster without all its slots or moving one (CLUSTERDOWN,
 * TRYAGAIN, and a MOVED or ASK a client did not follow: a pipeline's, across a failover), busy in a script (BUSY), unable to persist (MISCONF) or full (OOM).
 */
const UNAVAILABLE_REPLIES = new Set([
  'READONLY',
  'NOREPLICAS',
  'MASTERDOWN',
  'UNBLOCKED',
  'LOADING',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'MOVED',
  'ASK',
  'BUSY',
  'MISCONF',
  'OOM',
]);

/** The socket's errors (Node's codes) on the way to Redis. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The clients' own errors (names and message openings, as ioredis 5 and BullMQ 6 throw them) for a
 * command that could not be sent or answered: the connection closed or not ready with no offline
 * queue, a command's timeout, its retries spent, no Sentinel or cluster node reachable, BullMQ's
 * cluster connection not back in time (its ConnectionClosedError).
 */
const CLIENT_ERROR_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'ClusterAllFailedError',
  'AbortError',
  'InterruptError',
  'ConnectionClosedError',
]);
const CLIENT_MESSAGES = [
  'Connection is closed',
  'Connection is aborted',
  'Command aborted due to connection close',
  "Stream isn't writeable",
  "Cluster isn't ready",
  'Cluster is disconnected',
  'Cluster is ended',
  'Node is disconnected',
  'None of startup nodes is available',
  'Too many Cluster redirections',
  'All sentinels are unreachable',
  'Command timed out',
  'Socket timeout',
  'connect ETIMEDOUT',
];

/**
 * Whether a thrown value says Redis is away (the answer is 503, try again), as opposed to a fault
 * of ours, which includes Redis refusing a command of ours as wrong (WRONGTYPE, a script's ERR):
 * a positive list, so that a bug is never mistaken for an outage.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof RedisUnavailable) return true;
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  if (CLIENT_ERROR_NAMES.has(error.name)) return true;
  if (error.name === 'ReplyError') return UNAVAILABLE_REPLIES.has(error.message.split(' ', 1)[0] ?? '');
  if (CLIENT_MESSAGES.some((opening) => error.message.startsWith(opening))) return true;
  // An error a client wraps around the one that says so (BullMQ keeps it as its `cause`).
  return error.cause !== undefined && error.cause !== error && isRedisUnavailable(error.cause);
}
