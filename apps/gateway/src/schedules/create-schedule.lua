--[[
  Makes a schedule, unless its owner has as many as it may have already (counted in the same step,
  so that gateways making some at once never pass the bound).

  Input:
    KEYS[1] the schedule's hash
    KEYS[2] every schedule (ZSET of index members)
    KEYS[3] the owner's schedules (ZSET of index members)

    ARGV[1] the definition (JSON)
    ARGV[2] its index member (`<created ms>:<id>`)
    ARGV[3] how many schedules an owner may have
    ARGV[4] the vshard its runs go to (REDIS_SHARDS above 1; absent at one shard)

  Output:
    1 - made
    0 - the owner has ARGV[3] schedules already
]]
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'definition', ARGV[1])
if ARGV[4] then redis.call('HSET', KEYS[1], 'vshard', ARGV[4]) end
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
return 1
