--[[
  Records what one due time of a schedule came to, once: a due time recorded already keeps its
  first record (a job tried again after its run was decided), and a schedule deleted meanwhile gets
  none. Only the latest runs are kept.

  Input:
    KEYS[1] the schedule's hash
    KEYS[2] its runs (ZSET of JSON runs scored by due time)

    ARGV[1] the due time (epoch ms)
    ARGV[2] the run (JSON)
    ARGV[3] how many runs are kept
    ARGV[4] the execution it launched, or ''

  Output:
    1 - recorded
    0 - not: the due time was recorded already, or there is no such schedule
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('ZCOUNT', KEYS[2], ARGV[1], ARGV[1]) > 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[3]) + 1))
-- What overlap `skip` asks about: whether the latest run launched has ended.
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'last_execution_id', ARGV[4]) end
return 1
