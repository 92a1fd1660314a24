--[[
  Takes the waiting composites whose deadline has passed, atomically, so that each is claimed by
  exactly one worker.

  Input:
    KEYS[1] the ZSET of waiting composites (scored by deadline, epoch ms)

    ARGV[1] now (epoch ms)
    ARGV[2] at most how many to take

  Output:
    the execution ids taken
]]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end
return ids
