--[[
  A trailing debounced execution starts: its key closes (a call from now on starts a new
  execution) and its inputs are read as the last call to join it left them, in one step. Its due
  time is brought back to now if a call moved it later than the start (its job was no longer
  delayed then, so it kept its time): status never shows it starting before it was due.

  Input:
    KEYS[1] the debounce key
    KEYS[2] the execution's record (HASH)

    ARGV[1] the execution's id
    ARGV[2] now (epoch ms)

  Output:
    { its inputs (JSON), when it was due (epoch ms) }, or nil when its record is gone
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local fields = redis.call('HMGET', KEYS[2], 'inputs', 'scheduled_for', 'created_at')
if not fields[1] then return nil end
local due = fields[2] or fields[3] or ARGV[2]
if tonumber(due) > tonumber(ARGV[2]) then
  due = ARGV[2]
  redis.call('HSET', KEYS[2], 'scheduled_for', due)
end
return { fields[1], due }
