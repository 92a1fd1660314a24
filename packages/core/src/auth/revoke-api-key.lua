--[[
  Revokes an API key: sets revoked_at the first time, on a key that exists.

  Input:
    KEYS[1] the key's HASH

    ARGV[1] when it is revoked (ISO 8601)

  Output:
    1 - revoked (now or before)
    0 - the key is unknown
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1])
return 1
