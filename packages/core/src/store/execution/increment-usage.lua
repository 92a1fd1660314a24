--[[
  Adds to counters of an execution's record that still exists (never recreates an expired one
  without a TTL).

  Input:
    KEYS[1] the execution's record (HASH)

    ARGV[1...] field/increment pairs

  Output:
    1 - added
    0 - the record is gone
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
