--[[
  Takes a concurrency slot in every set or in none. A full set is first repaired: members whose
  execution is final (or whose record is gone) leave it, so a lost release cannot hold a slot
  forever. With executions on other hash tags than the sets' (REDIS_SHARDS above 1), whose records
  a script cannot read, the caller repairs instead (in-flight-slots.ts).

  Input:
    KEYS[1...] the sets (sorted by the time each slot was taken)

    ARGV[1] the execution's id
    ARGV[2] now (epoch ms)
    ARGV[3] the prefix of execution record keys; '' when the caller repairs
    ARGV[4...] each set's limit, in the order of KEYS

  Output:
    { 0, count of each set... } - taken
    { index of the full set, its count } - not taken
]]

-- How long (ms) a slot whose execution record does not exist yet is left alone when a full set is
-- repaired: the record is written just after the slot is taken (in-flight-slots.ts has the same).
local UNRECORDED_GRACE_MS = 60000

local function repair(key)
  local stale = tonumber(ARGV[2]) - UNRECORDED_GRACE_MS
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #members, 2 do
    local status = redis.call('HGET', ARGV[3] .. members[i], 'status')
    local final = status == 'completed' or status == 'failed' or status == 'timeout' or status == 'canceled'
    if final or (not status and tonumber(members[i + 1]) < stale) then
      redis.call('ZREM', key, members[i])
    end
  end
end
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 3])
  if redis.call('ZCARD', key) >= limit then
    if ARGV[3] ~= '' then repair(key) end
    local count = redis.call('ZCARD', key)
    if count >= limit then return { i, count } end
  end
end
local counts = { 0 }
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[1])
  counts[#counts + 1] = redis.call('ZCARD', key)
end
return counts
