--[[
  Places a schedule's runs on a vshard (REDIS_SHARDS above 1): the one kept on the schedule while
  it is active, else the one given, kept from then on (a schedule made at one shard has none, one
  made with another REDIS_SHARDS may have one no longer active). Gateways that place it at once
  agree: the first keeps its own, the others find it. A run's id names the vshard, so that every
  try of a due time derives the same.

  Input:
    KEYS[1] the schedule's hash

    ARGV[1] the vshard to keep when it has no active one
    ARGV[2...] the active vshards

  Output:
    the vshard its runs go to; -1 when there is no such schedule
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local kept = redis.call('HGET', KEYS[1], 'vshard')
for i = 2, #ARGV do
  if kept == ARGV[i] then return tonumber(kept) end
end
redis.call('HSET', KEYS[1], 'vshard', ARGV[1])
return tonumber(ARGV[1])
