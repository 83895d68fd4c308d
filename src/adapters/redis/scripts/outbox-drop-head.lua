-- Drops an unreadable head if it is still the one read.
-- KEYS: queue, due. ARGV: the head as read, incident id, due ms.
--- @include "outbox-due"
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then redis.call('LPOP', KEYS[1]) end
outboxDue(KEYS[1], KEYS[2], ARGV[2], ARGV[3])
return 1
