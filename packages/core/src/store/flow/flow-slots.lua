--[[
  The shared part of the concurrency gate's scripts (admit-execution.lua, release-slots.lua follow
  it): who holds a slot of a skill's concurrency limits, who is parked waiting for one, and how
  freed slots go to parked executions, each concurrency key in turn.

  Keys, each the skill's flow prefix (FlowKeys.skill) and:
    running         ZSET execution id -> when it was given its slot: the skill's `limit`
    key:K:running   ZSET, the same for concurrency key K: `per_key` (K '' is "no key": no per_key)
    key:K:parked    LIST of the executions of K of priority `normal` parked waiting for a slot,
                    oldest first; key:K:parked:high and key:K:parked:low, the same for the other
                    priorities: within a key, a high one is given a slot before a normal one, a
                    normal one before a low one, each priority oldest first
    ready           LIST of the keys that have executions parked, in the order they get a turn
    parked          STRING: how many executions are parked (a gauge)

  An execution given its slots keeps them until it ends: its record lists the sets (`slots`), and
  its final transition leaves them (transition.lua), whichever process ends it. Its record's `gate`
  says how to hand them on then ("limit per_key key", release-slots.lua's ARGV[4...6]), so that the
  process that ends it need not know the skill's definition (ConcurrencyGate.releaseHeldBy).

  Input common to both scripts:
    ARGV[1] the skill's flow prefix
    ARGV[2] the prefix of execution record keys
    ARGV[3] now (epoch ms)
    ARGV[4] the skill's limit (0: none)
    ARGV[5] the limit per concurrency key (0: none)
    ARGV[6] the concurrency key the call is about (URI-encoded; '' for none)
]]
local flow = ARGV[1]
local records = ARGV[2]
local now = ARGV[3]
local limit = tonumber(ARGV[4])
local perKey = tonumber(ARGV[5])
local readyKey = flow .. 'ready'

local function runningOf(key) return flow .. 'key:' .. key .. ':running' end

-- A key's lines of parked executions, the first served first.
local PRIORITIES = { 'high', 'normal', 'low' }
local function parkedOf(key, priority)
  local line = flow .. 'key:' .. key .. ':parked'
  if priority == 'normal' then return line end
  return line .. ':' .. priority
end

-- How many executions of `key` are parked, of every priority.
local function parkedCount(key)
  local count = 0
  for _, priority in ipairs(PRIORITIES) do count = count + redis.call('LLEN', parkedOf(key, priority)) end
  return count
end

local function isFinal(status)
  return status == 'completed' or status == 'failed' or status == 'timeout' or status == 'canceled'
end

-- The sets an execution of `key` holds a slot in while it runs.
local function setsOf(key)
  local sets = {}
  if limit > 0 then sets[#sets + 1] = flow .. 'running' end
  if perKey > 0 and key ~= '' then sets[#sets + 1] = runningOf(key) end
  return sets
end

-- Whether `set` holds `max` slots. A full set is first repaired, at most once a second (a large
-- limit makes it long): members whose execution has ended (or whose record is gone) leave it, so
-- that a lost release cannot hold a slot forever.
local function isFull(set, max)
  if redis.call('ZCARD', set) < max then return false end
  if not redis.call('SET', set .. ':repaired', '1', 'PX', 1000, 'NX') then return true end
  for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    local status = redis.call('HGET', records .. id, 'status')
    if not status or isFinal(status) then redis.call('ZREM', set, id) end
  end
  return redis.call('ZCARD', set) >= max
end

local function isKeyFull(key) return perKey > 0 and key ~= '' and isFull(runningOf(key), perKey) end
local function isSkillFull() return limit > 0 and isFull(flow .. 'running', limit) end

-- Gives `id` (of `key`) its slots, listed in its record for its end to free.
local function grant(id, key)
  local record = records .. id
  local held = redis.call('HGET', record, 'slots')
  local slots = held and cjson.decode(held) or {}
  for _, set in ipairs(setsOf(key)) do
    redis.call('ZADD', set, now, id)
    slots[#slots + 1] = set
  end
  redis.call('HSET', record, 'slots', cjson.encode(slots), 'gate', limit .. ' ' .. perKey .. ' ' .. key)
end

-- Takes the first execution parked under `key` (the oldest of its highest priority) that has not
-- ended (canceled, or timed out, while it waited) off its lists; nil when there is none.
local function popLive(key)
  for _, priority in ipairs(PRIORITIES) do
    local line = parkedOf(key, priority)
    for _ = 1, redis.call('LLEN', line) do
      local id = redis.call('LPOP', line)
      redis.call('DECR', flow .. 'parked')
      local status = redis.call('HGET', records .. id, 'status')
      if status and not isFinal(status) then return id end
    end
  end
  return nil
end

-- Parks `id` at the end of its key's line for its priority (the key gets a turn if it had none).
local function park(id, key)
  local priority = redis.call('HGET', records .. id, 'priority')
  if priority ~= 'high' and priority ~= 'low' then priority = 'normal' end
  if parkedCount(key) == 0 then redis.call('RPUSH', readyKey, key) end
  redis.call('RPUSH', parkedOf(key, priority), id)
  redis.call('INCR', flow .. 'parked')
end

--[[
  Gives the free slots to parked executions and answers their ids. Keys take turns (round robin),
  one execution each (the first of its lines: priority decides within a key, never across keys); a
  key at its own limit is passed over and keeps its turn's place, so a busy key never holds back
  the others. The keys passed over are at most those holding a slot, so a call visits at most
  `limit` of them. Without a limit for the whole skill, only `key`'s slots can have been freed, and
  only its parked are looked at.
]]
local function dispatch(key)
  local granted = {}
  if limit == 0 then
    while not isKeyFull(key) do
      local id = popLive(key)
      if not id then break end
      grant(id, key)
      granted[#granted + 1] = id
    end
    if parkedCount(key) == 0 then redis.call('LREM', readyKey, 0, key) end
    return granted
  end
  local passed = 0
  while passed < redis.call('LLEN', readyKey) and not isSkillFull() do
    local turn = redis.call('LINDEX', readyKey, 0)
    if isKeyFull(turn) then
      passed = passed + 1
    else
      local id = popLive(turn)
      if id then
        grant(id, turn)
        granted[#granted + 1] = id
        passed = 0
      end
    end
    if parkedCount(turn) == 0 then
      redis.call('LPOP', readyKey)
    else
      redis.call('LMOVE', readyKey, readyKey, 'LEFT', 'RIGHT')
    end
  end
  return granted
end

-- Each granted execution with what names its job's queue: its version and priority.
local function withQueues(ids)
  local answer = {}
  for _, id in ipairs(ids) do
    local fields = redis.call('HMGET', records .. id, 'skill_version', 'priority')
    answer[#answer + 1] = id
    answer[#answer + 1] = fields[1] or ''
    answer[#answer + 1] = fields[2] or 'normal'
  end
  return answer
end
