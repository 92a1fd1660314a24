--[[
  Takes a skill version's scale-to-zero mark away. Refuses while a worker holds a live lease on it:
  that worker would mark it again at its next heartbeat.

  Input:
    KEYS[1] the dormant HASH (scale-to-zero marks)
    KEYS[2] the version's hosts ZSET (scored by lease expiry)

    ARGV[1] id@version
    ARGV[2] now (epoch ms)

  Output:
    'removed' - the mark is gone
    'absent'  - there was none
    'hosted'  - a worker holds a live lease on the version
]]
if redis.call('ZCOUNT', KEYS[2], ARGV[2], '+inf') > 0 then return 'hosted' end
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then return 'removed' end
return 'absent'
