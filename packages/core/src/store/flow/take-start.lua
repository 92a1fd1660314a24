--[[
  Takes one start of a skill's rate limit, at most ARGV[1] starts in any window of ARGV[2] ms (a
  sliding window of the starts taken, by Redis' clock so that every worker counts alike), or
  answers how long until one may be taken.

  Input:
    KEYS[1] the skill's starts (ZSET member -> epoch ms it was taken)

    ARGV[1] the most starts in a window
    ARGV[2] the window (ms)
    ARGV[3] the start's member (unique: a worker's lock token)

  Output:
    0 - taken
    n - none free: the ms until one is
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
