--[[
  The deadline of a composite's attempt, fixed when the attempt first runs and kept while it waits
  for its steps.

  Input:
    KEYS[1] the execution's record (HASH)

    ARGV[1] the attempt's number
    ARGV[2] the deadline proposed (epoch ms)

  Output:
    the deadline in force (epoch ms)
]]
if redis.call('HGET', KEYS[1], 'deadline_attempt') == ARGV[1] then
  return tonumber(redis.call('HGET', KEYS[1], 'deadline_ms'))
end
redis.call('HSET', KEYS[1], 'deadline_attempt', ARGV[1], 'deadline_ms', ARGV[2])
return tonumber(ARGV[2])
