--[[
  Registers a skill version hosted elsewhere (by a provider). Published versions are immutable, an
  id served by workers here is theirs, and an id's versions are its owner's: another caller adds
  none (unless allowed to, as an admin is), so the check and the write are one decision.

  Input:
    KEYS[1] the skill's versions HASH
    KEYS[2] the ZSET of skill ids

    ARGV[1] the version
    ARGV[2] its entry (JSON)
    ARGV[3] its content digest
    ARGV[4] the skill's id
    ARGV[5] its owner (the entry's `owner`)
    ARGV[6] '1' to add to the id whoever owns its versions, '0' otherwise

  Output:
    'created'   - registered
    'unchanged' - registered already with the same content
    'conflict'  - registered already with other content
    'hosted'    - workers here serve the id
    'foreign'   - another owner's versions hold the id
]]
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
  local entry = cjson.decode(value)
  if entry.source ~= 'registered' then return 'hosted' end
  if ARGV[6] ~= '1' and entry.owner ~= ARGV[5] then return 'foreign' end
end
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  if cjson.decode(existing).digest == ARGV[3] then return 'unchanged' end
  return 'conflict'
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
return 'created'
