--[[
  Decides an execution's approval: the guard that runs, in the same script, just before
  transition.lua moves the record (the script is this text followed by transition.lua's), so that
  of two decisions sent at once (two approvers, a person and the deadline) exactly one is made: the
  first finds the record `awaiting_approval` and moves it (to `accepted` when approved, to its end
  when rejected or timed out), the second finds it moved and changes nothing. An approved one
  leaves the pending list here (an end leaves it as one of the record's `slots`).

  Input:
    KEYS    transition.lua's (KEYS[1] the execution's record)

    ARGV[1]    the pending approvals SORTED SET (on the record's tag)
    ARGV[2...] transition.lua's arguments (ARGV[3] of them the execution's id)

  Output:
    -3 - it is not awaiting an approval (decided already, ended, or never asked): nothing was changed
    otherwise transition.lua's
]]
local pending = ARGV[1]
-- transition.lua reads its own arguments from ARGV[1]: this local ARGV, without the list, is what it sees.
local ARGV = { unpack(ARGV, 2) }
if redis.call('HGET', KEYS[1], 'status') ~= 'awaiting_approval' then return -3 end
redis.call('ZREM', pending, ARGV[3])
