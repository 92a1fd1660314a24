--[[
  Opens a task: the execution runs (its first start kept), waits for someone until a deadline, and
  is listed among the open tasks, everyone's and its skill's, which it leaves when it ends: their
  keys join the record's `slots`, the sets the end of an execution removes it from (transition.lua).
  Opening again changes nothing. The opening is announced to the record's watchers as transition.lua
  announces a change (the id, then `running`): whoever waits for the task to open (an MCP call that
  asks its form) is woken by it, not by a later read.

  Input:
    KEYS[1] the execution's record
    KEYS[2] the ZSET of everyone's open tasks on the record's tag (its slot: the end removes it there)
    KEYS[3] the ZSET of its skill's open tasks on the record's tag

    ARGV[1] the execution's id
    ARGV[2] now (epoch ms)
    ARGV[3] the deadline (epoch ms)
    ARGV[4] the watchers' inbox prefix (a channel name without the watcher's id)

  Output:
    1 - open
    0 - the record is gone or has ended
]]
local current = redis.call('HMGET', KEYS[1], 'status', 'slots', 'task_deadline', 'watched')
local final = { completed = true, failed = true, timeout = true, canceled = true }
if not current[1] or final[current[1]] then return 0 end
if current[3] then return 1 end
local slots = current[2] and cjson.decode(current[2]) or {}
table.insert(slots, KEYS[2])
table.insert(slots, KEYS[3])
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[2], 'slots', cjson.encode(slots),
  'task_deadline', ARGV[3])
redis.call('HSETNX', KEYS[1], 'started_at', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
if current[4] then
  for watcher in string.gmatch(current[4], '%S+') do
    redis.call('PUBLISH', ARGV[4] .. watcher, ARGV[1] .. '\nrunning')
  end
end
return 1
