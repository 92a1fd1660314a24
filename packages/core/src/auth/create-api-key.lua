--[[
  Stores a new API key's fields and indexes its id, unless the id is taken.

  Input:
    KEYS[1] the key's HASH
    KEYS[2] its caller's SET of key ids
    KEYS[3] the SET of all key ids

    ARGV[1] the key's id
    ARGV[2...] field/value pairs of its record

  Output:
    1 - created
    0 - the id is taken
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
