--[[
  Spends from a tree's budget (context.budget, shared by an execution and every step under it) in one
  atomic step, so that concurrent steps cannot together spend more than it holds. The limits come with
  every call (each job of the tree carries them); the key holds only what was spent and what LLM calls
  in flight have reserved.

  Input:
    KEYS[1] the root execution's budget (HASH: tokens, cost, steps spent; r_tokens, r_cost reserved)

    ARGV[1] op: "reserve" (before an LLM call), "settle" (after it), "step" (before steps start)
    ARGV[2] now, epoch ms
    ARGV[3] the key's TTL, seconds
    ARGV[4] max_tokens, ARGV[5] max cost in nano-dollars, ARGV[6] max_steps, ARGV[7] ends_at (ms):
            each "" when the budget has no such limit
    reserve: ARGV[8] the prompt's estimated tokens, ARGV[9] the completion tokens wanted ("": any),
             ARGV[10] nano-dollars per prompt token, ARGV[11] per completion token
    settle:  ARGV[8] tokens reserved, ARGV[9] nano-dollars reserved, ARGV[10] tokens spent,
             ARGV[11] nano-dollars spent
    step:    ARGV[8] how many steps start

  Output: {status, limit, cap, reserved tokens, reserved nano-dollars, tokens, nano-dollars, steps}
    status 1 - taken (reserve: `cap` the completion tokens the call may write, -1 for no cap;
               settle: the budget still has room)
    status 0 - refused, or (settle) spent: `limit` names the limit reached
    and what the tree has spent so far.
]]
local key = KEYS[1]
local op = ARGV[1]
local now = tonumber(ARGV[2])
local maxTokens = tonumber(ARGV[4])
local maxCost = tonumber(ARGV[5])
local maxSteps = tonumber(ARGV[6])
local endsAt = tonumber(ARGV[7])

local function field(name) return tonumber(redis.call('HGET', key, name) or '0') end
local function add(name, amount)
  if amount ~= 0 then redis.call('HINCRBY', key, name, string.format('%.0f', amount)) end
end

local function answer(status, limit, cap, reservedTokens, reservedCost)
  redis.call('EXPIRE', key, ARGV[3])
  return {status, limit, cap, reservedTokens, reservedCost, field('tokens'), field('cost'), field('steps')}
end

-- The first limit that what is spent and reserved has reached, if any.
local function reached(tokens, cost)
  if endsAt and now >= endsAt then return 'max_duration_ms' end
  if maxTokens and tokens >= maxTokens then return 'max_tokens' end
  if maxCost and cost >= maxCost then return 'max_cost_usd' end
  return nil
end

if op == 'settle' then
  add('r_tokens', -tonumber(ARGV[8]))
  add('r_cost', -tonumber(ARGV[9]))
  add('tokens', tonumber(ARGV[10]))
  add('cost', tonumber(ARGV[11]))
  local limit = reached(field('tokens'), field('cost'))
  if limit then return answer(0, limit, 0, 0, 0) end
  return answer(1, '', 0, 0, 0)
end

if op == 'step' then
  local limit = reached(field('tokens'), field('cost'))
  if limit then return answer(0, limit, 0, 0, 0) end
  local count = tonumber(ARGV[8])
  if maxSteps and field('steps') + count > maxSteps then return answer(0, 'max_steps', 0, 0, 0) end
  add('steps', count)
  return answer(1, '', 0, 0, 0)
end

-- reserve: what is spent and what calls in flight hold both count, so that racing calls share the rest.
local heldTokens = field('tokens') + field('r_tokens')
local heldCost = field('cost') + field('r_cost')
local limit = reached(heldTokens, heldCost)
if limit then return answer(0, limit, 0, 0, 0) end
local prompt = tonumber(ARGV[8])
local cap = tonumber(ARGV[9])
local inPrice = tonumber(ARGV[10])
local outPrice = tonumber(ARGV[11])
if maxTokens then
  local room = maxTokens - heldTokens - prompt
  if room < 1 then return answer(0, 'max_tokens', 0, 0, 0) end
  if not cap or room < cap then cap = room end
end
if maxCost and (inPrice > 0 or outPrice > 0) then
  local room = maxCost - heldCost - prompt * inPrice
  if room <= 0 then return answer(0, 'max_cost_usd', 0, 0, 0) end
  if outPrice > 0 then
    local affordable = math.floor(room / outPrice)
    if affordable < 1 then return answer(0, 'max_cost_usd', 0, 0, 0) end
    if not cap or affordable < cap then cap = affordable end
  end
end
if not cap then return answer(1, '', -1, 0, 0) end
local reservedTokens = prompt + cap
local reservedCost = math.ceil(prompt * inPrice + cap * outPrice)
add('r_tokens', reservedTokens)
add('r_cost', reservedCost)
return answer(1, '', cap, reservedTokens, reservedCost)
