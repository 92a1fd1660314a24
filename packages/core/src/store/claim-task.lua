--[[
  Claims an open task for a caller.

  Input:
    KEYS[1] the execution's record

    ARGV[1] the caller's id
    ARGV[2] now (epoch ms)

  Output:
    1  - the caller holds it now (or held it already)
    0  - it is not an open task (gone, ended, or not a task)
    -1 - another caller holds it
]]
local current = redis.call('HMGET', KEYS[1], 'status', 'task_deadline', 'task_claimed_by')
local final = { completed = true, failed = true, timeout = true, canceled = true }
if not current[1] or final[current[1]] or not current[2] then return 0 end
if current[3] then return current[3] == ARGV[1] and 1 or -1 end
redis.call('HSET', KEYS[1], 'task_claimed_by', ARGV[1], 'task_claimed_at', ARGV[2], 'updated_at', ARGV[2])
return 1
