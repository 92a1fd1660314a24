--[[
  Moves an execution forward, never backwards: awaiting_approval or accepted (0) -> running (1) -> a
  terminal state (2), and nothing changes a terminal state (awaiting_approval -> accepted is an
  approval's, guarded by approval-decision.lua). The one write that moves an execution record.

  A terminal state starts the retention period and frees the execution's concurrency slots
  (in-flight-slots.ts). Every applied change to a watched record (read-record.lua) is announced in
  the inbox of each watcher its `watched` names (space-separated ids): the execution's id, its new
  status, and with a terminal one the whole record as it ends (unless its outcome is over 16 KB:
  pub/sub copies every message to every node of a cluster), so that whoever waits for the end needs
  no read after it. A record with a webhook or a follower (`hook`: `end` or `change`) has its end,
  or every change, appended to the notifications STREAM that webhook dispatchers and callers' event
  streams read: whichever process ends it. An end starts the retention period of the execution's
  chunk STREAM too, if it emitted any (append-chunks.lua, which appends nothing after it). The end of an execution started in a batch keeps the
  batch's record for the retention period from then on (a batch lives as long as its executions).

  Input:
    KEYS[1] the execution's record (HASH)
    KEYS[2] the execution's outcome STRING (an outcome too long for the record)
    KEYS[3] the notifications STREAM (the one on the record's tag)
    KEYS[4] the execution's chunk STREAM

    ARGV[1] the new status
    ARGV[2] retention (ms)
    ARGV[3] the execution's id
    ARGV[4] started_at, kept from the first time it is given (may be empty)
    ARGV[5] an outcome too long for the record (may be empty)
    ARGV[6] the watchers' inbox prefix (a channel name without the watcher's id)
    ARGV[7] the batches' key prefix on the record's tag (a batch's key without its id)
    ARGV[8...] field/value pairs to set

  Keys it touches that are not in KEYS, because they are named by the record itself: the batch's
  (ARGV[7] .. `batch_id`: on the record's tag, since a batch's executions take its vshard) and every
  set in `slots` on the record's hash tag. A Redis Cluster needs them in the record's slot
  (docs/design/sharding.md, slices 8 and 10): a set on another tag (an in-flight quota's, on the
  prefix's, of an execution on a vshard) is answered instead, for the caller to leave next.

  Output:
    1  - applied
    { 1, set... } - applied, an end that left the execution in these sets (on another hash tag)
    0  - the record is missing
    -1 - refused: the move would go backwards, or out of a terminal state
]]
local current = redis.call('HMGET', KEYS[1], 'status', 'started_at', 'slots', 'watched', 'hook', 'webhook_id', 'owner_id', 'skill_id', 'batch_id', 'chunks')
if not current[1] then return 0 end
local rank = { awaiting_approval = 0, accepted = 0, running = 1, completed = 2, failed = 2, timeout = 2, canceled = 2 }
if rank[current[1]] == 2 or rank[ARGV[1]] < rank[current[1]] then return -1 end
if ARGV[4] ~= '' and not current[2] then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'started_at', ARGV[4], unpack(ARGV, 8))
else
  redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 8))
end
local elsewhere = {}
if rank[ARGV[1]] == 2 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if ARGV[5] ~= '' then redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[2]) end
  if current[3] then
    -- A record without a hash tag of its own first (no braces) shares its server with every key.
    local tag = string.match(KEYS[1], '^{[^}]*}')
    for _, key in ipairs(cjson.decode(current[3])) do
      if not tag or string.sub(key, 1, #tag) == tag then
        redis.call('ZREM', key, ARGV[3])
      else
        elsewhere[#elsewhere + 1] = key
      end
    end
  end
  if current[9] then redis.call('PEXPIRE', ARGV[7] .. current[9], ARGV[2]) end
  if current[10] then redis.call('PEXPIRE', KEYS[4], ARGV[2]) end
end
if current[4] then
  local message = ARGV[3] .. '\n' .. ARGV[1]
  if rank[ARGV[1]] == 2 and string.len(ARGV[5]) <= 16384 then
    message = message .. '\n' .. cjson.encode(redis.call('HGETALL', KEYS[1])) .. '\n' .. ARGV[5]
  end
  for watcher in string.gmatch(current[4], '%S+') do redis.call('PUBLISH', ARGV[6] .. watcher, message) end
end
if current[5] == 'change' or (current[5] == 'end' and rank[ARGV[1]] == 2) then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', '100000', '*', 'execution_id', ARGV[3], 'status', ARGV[1],
    'webhook_id', current[6] or '', 'owner', current[7] or '', 'skill_id', current[8] or '')
end
if #elsewhere > 0 then return { 1, unpack(elsewhere) } end
return 1
