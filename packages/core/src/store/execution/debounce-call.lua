--[[
  One debounced invocation (context.debounce): joins the execution its key has open, or writes the
  record of a new execution and opens the key on it, in one step, so that calls racing from any
  number of gateways agree on one execution. A `trailing` key stays open until its execution starts
  (debounce-start.lua closes it): a call meanwhile gives it its inputs, so that it runs with the
  last call's. A `leading` key stays open `delay_ms` after the last call, whatever its execution
  does meanwhile; the calls it takes are dropped.

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
    ARGV[8...] the new record's field/value pairs

  Output:
    { 'joined', id of the open execution } or { 'created' }
]]
local open = redis.call('GET', KEYS[1])
if open then
  local record = ARGV[1] .. open
  local current = redis.call('HMGET', record, 'status', 'skill_version')
  if ARGV[2] == 'leading' and current[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return { 'joined', open }
  end
  if current[1] == 'accepted' and current[2] == ARGV[4] then
    redis.call('HSET', record, 'inputs', ARGV[5], 'scheduled_for', ARGV[7])
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return { 'joined', open }
  end
end
redis.call('HSET', KEYS[2], unpack(ARGV, 8))
redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[3])
return { 'created' }
