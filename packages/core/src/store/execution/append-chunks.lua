--[[
  Appends a skill's chunks (ctx.emit, an llm skill's text deltas) to its execution's chunk STREAM,
  numbered on from the last one the execution emitted (any attempt, any worker): the record's
  `chunks` counts them, and each entry's id is `<seq>-0`, so that a reader resumes after a seq with
  an exclusive XRANGE. Refused once the execution has ended, so that every chunk comes before the
  end (and a late chunk of a timed-out attempt is not kept); the stream expires with the record
  (transition.lua). A watched record (read-record.lua) has the append announced in its watchers'
  inboxes (`<execution id>\nchunk`), one message per call however many chunks it brings.

  Input:
    KEYS[1] the execution's record (HASH)
    KEYS[2] the execution's chunk STREAM

    ARGV[1] the execution's id
    ARGV[2] the stream's length bound (MAXLEN ~: the oldest chunks go first)
    ARGV[3] the watchers' inbox prefix (a channel name without the watcher's id)
    ARGV[4...] the chunks, as JSON

  Output:
    n  - appended: the seq of the last chunk (the first is n - #chunks + 1)
    0  - the record is missing
    -1 - refused: the execution has ended
]]
local current = redis.call('HMGET', KEYS[1], 'status', 'watched')
if not current[1] then return 0 end
local final = { completed = true, failed = true, timeout = true, canceled = true }
if final[current[1]] then return -1 end
local count = #ARGV - 3
local last = redis.call('HINCRBY', KEYS[1], 'chunks', count)
for i = 1, count do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], (last - count + i) .. '-0', 'c', ARGV[i + 3])
end
if current[2] then
  for watcher in string.gmatch(current[2], '%S+') do
    redis.call('PUBLISH', ARGV[3] .. watcher, ARGV[1] .. '\nchunk')
  end
end
return last
