--[[
  The readiness check's write, made the way BullMQ writes: a script that sets a key (with a TTL, so
  nothing piles up) and reads it back.

  Input:
    KEYS[1] the probe's key, under the queues' key prefix

    ARGV[1] a token new to this probe

  Output:
    the token, when the write went through
]]
redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return redis.call('GET', KEYS[1])
