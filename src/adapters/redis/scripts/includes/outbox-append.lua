-- Appends one Slack outbox entry, its JSON with "id":"" first, under the next id; returns the id.
local function outboxAppend(seqKey, queueKey, entry)
  local id = 'o' .. redis.call('INCR', seqKey)
  redis.call('RPUSH', queueKey, '{"id":"' .. id .. '"' .. string.sub(entry, 9))
  return id
end
