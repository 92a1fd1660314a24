--[[
  Hosts a skill version for one worker. Refuses when the version exists with other content and is
  registered, or hosted by another live worker; a hosted version nobody serves any more may be
  replaced. The scale-to-zero mark follows the latest worker's setting, so that a pool's rollout
  from one setting to the other ends with the new one.

  Input:
    KEYS[1] the skill's versions HASH
    KEYS[2] the ZSET of skill ids
    KEYS[3] the version's hosts ZSET (scored by lease expiry)
    KEYS[4] the dormant HASH (scale-to-zero marks)

    ARGV[1] the version
    ARGV[2] its entry (JSON)
    ARGV[3] its content digest
    ARGV[4] the worker's id
    ARGV[5] the worker's lease expiry (epoch ms)
    ARGV[6] now (epoch ms)
    ARGV[7] the skill's id
    ARGV[8] id@version
    ARGV[9] '1' when the worker scales to zero, '0' otherwise

  Output:
    'ok'         - hosted
    'registered' - the version is registered for a provider elsewhere, with other content
    'conflict'   - another live worker hosts the version with other content
]]
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local entry = cjson.decode(existing)
  if entry.digest ~= ARGV[3] then
    if entry.source ~= 'hosted' then return 'registered' end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[6])
    local others = redis.call('ZCARD', KEYS[3])
    if redis.call('ZSCORE', KEYS[3], ARGV[4]) then others = others - 1 end
    if others > 0 then return 'conflict' end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('ZADD', KEYS[2], 0, ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
if ARGV[9] == '1' then
  redis.call('HSET', KEYS[4], ARGV[8], ARGV[4])
else
  redis.call('HDEL', KEYS[4], ARGV[8])
end
return 'ok'
