--[[
  Admits an execution of a skill with concurrency limits as a worker takes its job (follows
  flow-slots.lua). One that holds its slots runs (taken now, or given while it was parked, or kept
  from an earlier attempt); one over a limit is parked at the end of its key's list, and its worker
  moves its job to the delayed set, holding no worker slot until a slot is given to it. One that
  runs loses its record's `unadmitted` mark: until then its job, though taken, does not read as running.

  Input:
    KEYS[1] the execution's record (HASH)
    KEYS[2] the skill's rate-limited starts (ZSET, rate-starts.ts)

    ARGV[1...6] see flow-slots.lua (ARGV[6]: the execution's concurrency key)
    ARGV[7] the execution's id
    ARGV[8] the start its worker took of the skill's rate limit, given back if it is parked ('' if none)

  Output:
    { verdict, parks, then id, version, priority of each other execution given its slots }
    verdict: 'run', 'parked' or 'ended' (the execution has ended: nothing to run)
    parks: how many times its job was parked (each counts one start in BullMQ's job)
]]
local record = KEYS[1]
local id = ARGV[7]
local key = ARGV[6]
local status = redis.call('HGET', record, 'status')
local parks = tonumber(redis.call('HGET', record, 'parks') or '0')
if not status or isFinal(status) then return { 'ended', parks } end
local sets = setsOf(key)
if #sets == 0 or redis.call('ZSCORE', sets[1], id) then
  redis.call('HDEL', record, 'waiting_for', 'unadmitted')
  return { 'run', parks }
end
-- Parked already (its job due again before a slot came): it keeps its place in line.
if not redis.call('HGET', record, 'waiting_for') then park(id, key) end
local others = {}
local runs = false
for _, granted in ipairs(dispatch(key)) do
  if granted == id then runs = true else others[#others + 1] = granted end
end
local answer
if runs then
  redis.call('HDEL', record, 'waiting_for', 'unadmitted')
  answer = { 'run', parks }
else
  redis.call('HSET', record, 'waiting_for', 'concurrency', 'parks', parks + 1)
  if ARGV[8] ~= '' then redis.call('ZREM', KEYS[2], ARGV[8]) end
  answer = { 'parked', parks + 1 }
end
for _, value in ipairs(withQueues(others)) do answer[#answer + 1] = value end
return answer
