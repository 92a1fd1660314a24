--[[
  Creates a webhook delivery once: a dispatcher that handles the same event again (it crashed
  before it acknowledged it) finds it there.

  Input:
    KEYS[1] the delivery's HASH
    KEYS[2] its webhook's LIST of deliveries

    ARGV[1] retention seconds
    ARGV[2] how many deliveries the list keeps
    ARGV[3] the delivery's id
    ARGV[4...] field/value pairs of the delivery

  Output:
    1 - created
    0 - it exists already
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[3])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 1
