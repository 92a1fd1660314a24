--[[
  Settles an idempotency key's pending claim: binds the key to what the request started, or frees
  it, only while the key still holds that claim (a claim that lapsed may be another request's now).

  Input:
    KEYS[1] the idempotency key

    ARGV[1] the pending claim
    ARGV[2] the binding to set, or '' to delete the key
    ARGV[3] the binding's retention (ms)

  Output:
    1 - settled
    0 - the key no longer holds the claim
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
