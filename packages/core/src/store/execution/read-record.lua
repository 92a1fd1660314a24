--[[
  Reads an execution's record and its outcome STRING in one call. Given a watcher's id, it first
  adds that watcher to an existing record's `watched`: from then on the record's changes are
  announced in that watcher's inbox (transition.lua), and only then, so that the executions nobody
  waits for (most of them) cost Redis no PUBLISH. The watcher is subscribed to its inbox before this
  read, so no change is missed: one before the mark is in what it reads, one after it is announced.

  Input:
    KEYS[1] the execution's record (HASH)
    KEYS[2] the execution's outcome STRING

    ARGV[1] the watcher's id, or '' for a read alone

  Output:
    { the record's fields as a flat field/value list, the outcome or nil }
]]
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[1]) == 1 then
  local watched = redis.call('HGET', KEYS[1], 'watched')
  if not watched then
    redis.call('HSET', KEYS[1], 'watched', ARGV[1])
  elseif not string.find(' ' .. watched .. ' ', ' ' .. ARGV[1] .. ' ', 1, true) then
    redis.call('HSET', KEYS[1], 'watched', watched .. ' ' .. ARGV[1])
  end
end
return { redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) }
