-- Appends a message owed to Slack to its incident's queue; the queue is due now unless it already is.
-- KEYS: seq, queue, due. ARGV: now, incident id, entry JSON with "id":"" first. Returns the entry's id.
--- @include "outbox-append"
local id = outboxAppend(KEYS[1], KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], 'NX', ARGV[1], ARGV[2])
return id
