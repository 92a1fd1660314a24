--[[
  Has every later change of an execution that has not ended appended to the notifications stream
  (transition.lua): a caller's event stream follows it from now on.

  Input:
    KEYS[1] the execution's record (HASH)

  Output:
    1 - followed
    0 - the record is gone or has ended
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'timeout' or status == 'canceled' then
  return 0
end
redis.call('HSET', KEYS[1], 'hook', 'change')
return 1
