--[[
  One debounced invocation (context.debounce): joins the execution its key has open, or writes the
  record of a new execution and opens the key on it, in one step, so that calls racing from any
  number of gateways agree on one execution. A `trailing` key stays open until its execution starts
  (debounce-start.lua closes it): a call meanwhile gives it its inputs, so that it runs with the
  last call's. A `leading` key stays open `delay_ms` after the last call, whatever its execution
  does meanwhile; the calls it takes are dropped. With a maximum delay, a trailing execution is due
  at most that long after its record was made (its first call), and a leading key stays open at
  most that long after it: a key hit without pause cannot hold an execution back for ever.

  Input:
    KEYS[1] the key (STRING: the id of its open execution)
    KEYS[2] the new execution's record (HASH)

    ARGV[1] the prefix of execution record keys
    ARGV[2] 'trailing' or 'leading'
    ARGV[3] how long the key stays open (ms): the delay (leading), or a bound past it (trailing)
    ARGV[4] the version the call resolved (trailing: only an execution of it takes its inputs)
    ARGV[5] the call's inputs (JSON)
    ARGV[6] the new execution's id
    ARGV[7] when a trailing execution is due after this call (epoch ms)
    ARGV[8] the maximum delay (ms), or '' for none
    ARGV[9] now (epoch ms)
    ARGV[10...] the new record's field/value pairs

  Output:
    { 'joined', id of the open execution, when it is due (epoch ms; trailing) } or { 'created' }
]]
local open = redis.call('GET', KEYS[1])
if open then
  local record = ARGV[1] .. open
  local current = redis.call('HMGET', record, 'status', 'skill_version', 'created_at')
  -- Past the maximum delay, the open execution's first call was long enough ago.
  local latest = ARGV[8] ~= '' and current[3] and tonumber(current[3]) + tonumber(ARGV[8])
  if ARGV[2] == 'leading' and current[1] then
    local open_for = tonumber(ARGV[3])
    if latest then open_for = math.min(open_for, latest - tonumber(ARGV[9])) end
    if open_for > 0 then
      redis.call('PEXPIRE', KEYS[1], open_for)
      return { 'joined', open }
    end
  elseif current[1] == 'accepted' and current[2] == ARGV[4] then
    local due = tonumber(ARGV[7])
    if latest and latest < due then due = latest end
    redis.call('HSET', record, 'inputs', ARGV[5], 'scheduled_for', due)
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return { 'joined', open, due }
  end
end
redis.call('HSET', KEYS[2], unpack(ARGV, 10))
redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[3])
return { 'created' }
