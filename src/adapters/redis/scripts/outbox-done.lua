-- An entry was sent: drops the head if it is that entry, forgets its attempts.
-- KEYS: queue, due, try. ARGV: entry id, incident id, now.
--- @include "outbox-due"
local head = redis.call('LINDEX', KEYS[1], 0)
if head and string.find(head, '"id":"' .. ARGV[1] .. '"', 1, true) == 2 then redis.call('LPOP', KEYS[1]) end
redis.call('HDEL', KEYS[3], ARGV[1])
outboxDue(KEYS[1], KEYS[2], ARGV[2], ARGV[3])
return 1
