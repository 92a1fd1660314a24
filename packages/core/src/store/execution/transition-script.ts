/**
 * The one write that moves an execution record: the script, the call that runs it (built apart, so
 * that a caller may send it inside a script of its own, as the worker does with BullMQ's completion
 * of the job) and what its reply means.
 */

/**
 * Moves an execution forward, never backwards: accepted (0) → running (1) → a terminal state (2),
 * and nothing changes a terminal state. KEYS: the record, the watchers' inbox prefix (a channel name
 * without the watcher's id), its outcome STRING, the notifications STREAM.
 * ARGV: new status, retention ms, execution id, started_at (kept from the first time it is given;
 * may be empty), an outcome too long for the record (may be empty), then field/value pairs. Returns
 * 1 when applied, 0 when the record is missing, -1 when the move would go backwards. A terminal
 * state starts the retention period and frees the execution's concurrency slots
 * (in-flight-slots.ts); every applied change to a watched record (READ) is announced in the inbox
 * of each watcher its `watched` names (space-separated ids): the execution's id, its new status,
 * and with a terminal one the whole record as it ends (unless its outcome is over 16 KB: pub/sub
 * copies every message to every node of a cluster), so that whoever waits for the end needs no read
 * after it.
 * A record with a webhook or a follower (`hook`: `end` or `change`) has its end, or every change,
 * appended to the notifications STREAM (KEYS[4]) that webhook dispatchers and callers' event streams
 * read: whichever process ends it.
 */
export const TRANSITION_LUA = `
local current = redis.call('HMGET', KEYS[1], 'status', 'started_at', 'slots', 'watched', 'hook', 'webhook_id', 'owner_id', 'skill_id')
if not current[1] then return 0 end
local rank = { accepted = 0, running = 1, completed = 2, failed = 2, timeout = 2, canceled = 2 }
if rank[current[1]] == 2 or rank[ARGV[1]] < rank[current[1]] then return -1 end
if ARGV[4] ~= '' and not current[2] then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'started_at', ARGV[4], unpack(ARGV, 6))
else
  redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 6))
end
if rank[ARGV[1]] == 2 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if ARGV[5] ~= '' then redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[2]) end
  if current[3] then
    for _, key in ipairs(cjson.decode(current[3])) do redis.call('ZREM', key, ARGV[3]) end
  end
end
if current[4] then
  local message = ARGV[3] .. '\\n' .. ARGV[1]
  if rank[ARGV[1]] == 2 and string.len(ARGV[5]) <= 16384 then
    message = message .. '\\n' .. cjson.encode(redis.call('HGETALL', KEYS[1])) .. '\\n' .. ARGV[5]
  end
  for watcher in string.gmatch(current[4], '%S+') do redis.call('PUBLISH', KEYS[2] .. watcher, message) end
end
if current[5] == 'change' or (current[5] == 'end' and rank[ARGV[1]] == 2) then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', '100000', '*', 'execution_id', ARGV[3], 'status', ARGV[1],
    'webhook_id', current[6] or '', 'owner', current[7] or '', 'skill_id', current[8] or '')
end
return 1
`;

/** What a transition did: applied, found no record, or refused a move backwards or out of an end. */
export type TransitionResult = 'applied' | 'missing' | 'refused';

/** A transition's keys and arguments (TRANSITION_LUA), ready to be sent. */
export interface TransitionCall {
  keys: string[];
  args: string[];
}

/** The meaning of TRANSITION_LUA's reply. */
export function transitionResult(reply: number): TransitionResult {
  return reply === 1 ? 'applied' : reply === 0 ? 'missing' : 'refused';
}
