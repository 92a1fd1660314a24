--[[
  Gives the slots an ended execution freed (its final transition left its sets) to the executions
  parked for them (follows flow-slots.lua).

  Input:
    KEYS[1] the skill's turns of keys (its flow prefix and 'ready')

    ARGV[1...6] see flow-slots.lua (ARGV[6]: the ended execution's concurrency key)

  Output:
    { id, version, priority of each execution given its slots }
]]
return withQueues(dispatch(ARGV[6]))
