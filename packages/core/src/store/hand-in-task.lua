--[[
  Hands a task in: the guard that runs, in the same script, just before transition.lua ends the
  execution (the script is this text followed by transition.lua's), so that who holds the task and
  its end are one decision. Of a claim and another caller's hand-in sent at once, exactly one wins:
  the claim first, the hand-in is refused; the hand-in first, the claim finds the task ended.
  A caller hands in an open task that no other caller has claimed. A one-time link acts for the
  caller who issued it and is held back as they would be; it needs no mark of its own once used:
  it is used up by the end it makes, which nothing changes after (transition.lua), so a refused
  hand-in leaves it as it was.

  Input:
    KEYS    transition.lua's (KEYS[1] the execution's record)

    ARGV[1]    who hands it in: a caller's id, or the id of the caller who issued the link ('' for a
               link that names nobody: any claim holds it back)
    ARGV[2...] transition.lua's arguments

  Output:
    -2 - another caller holds the task: nothing was changed
    otherwise transition.lua's
]]
local hand = ARGV[1]
-- transition.lua reads its own arguments from ARGV[1]: this local ARGV, without the hand, is what it sees.
local ARGV = { unpack(ARGV, 2) }
do
  local task = redis.call('HMGET', KEYS[1], 'status', 'task_claimed_by')
  local final = { completed = true, failed = true, timeout = true, canceled = true }
  if task[1] and not final[task[1]] and task[2] and task[2] ~= hand then return -2 end
end
