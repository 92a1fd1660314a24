/** The pauses a polling client of an unfinished execution is told to take, at least and at most. */
const SHORTEST_MS = 100;
const LONGEST_MS = 1000;

/**
 * How long a client polling an unfinished execution should wait before it asks again, in ms
 * (`Retry-After-Ms` of GET status and result, an MCP task's `pollInterval`): a tenth of the
 * execution's age, from 100 ms to 1 s. A short execution's end is seen within a tenth of its
 * time, and a long one costs at most a request a second, as `Retry-After: 1` (whole seconds only,
 * RFC 9110) says beside it for clients that read only that.
 */
export function pollHintMs(createdAt: string, now = Date.now()): number {
  const age = now - Date.parse(createdAt);
  if (!(age > 0)) return SHORTEST_MS;
  return Math.min(LONGEST_MS, Math.max(SHORTEST_MS, Math.round(age / 10)));
}
