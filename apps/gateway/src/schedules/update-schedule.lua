--[[
  Writes a schedule's changed definition, unless it was deleted meanwhile (a hash written then would
  be a schedule no index lists).

  Input:
    KEYS[1] the schedule's hash

    ARGV[1] the definition (JSON)

  Output:
    1 - written
    0 - no such schedule
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'definition', ARGV[1])
return 1
