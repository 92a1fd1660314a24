--[[
  Writes a batch's record and its expiry in one step, so that a record is never left without it
  (the record written again keeps its fields and gets the expiry anew).

  Input:
    KEYS[1] the batch's HASH

    ARGV[1] retention (seconds)
    ARGV[2...] field/value pairs

  Output:
    1
]]
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
