--[[
  Registers a skill version hosted elsewhere (by a provider). Published versions are immutable, and
  an id served by workers here is theirs.

  Input:
    KEYS[1] the skill's versions HASH
    KEYS[2] the ZSET of skill ids

    ARGV[1] the version
    ARGV[2] its entry (JSON)
    ARGV[3] its content digest
    ARGV[4] the skill's id

  Output:
    'created'   - registered
    'unchanged' - registered already with the same content
    'conflict'  - registered already with other content
    'hosted'    - workers here serve the id
]]
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local entry = cjson.decode(existing)
  if entry.source ~= 'registered' then return 'hosted' end
  if entry.digest == ARGV[3] then return 'unchanged' end
  return 'conflict'
end
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
  if cjson.decode(value).source == 'hosted' then return 'hosted' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
return 'created'
