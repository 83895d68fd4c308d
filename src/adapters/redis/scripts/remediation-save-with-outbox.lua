-- Saves an incident's remediation record with the messages it owes Slack, together or not at all.
-- KEYS: the record's hash, outbox seq, outbox queue, outbox due. ARGV: expected version, new data,
-- now, incident id, then each entry's JSON with "id":"" first. The queue's type is checked before
-- anything is written: a script that failed half-way would keep its first writes.
--- @include "save-if-version"
--- @include "outbox-append"
local t = redis.call('TYPE', KEYS[3]).ok
if t ~= 'none' and t ~= 'list' then return redis.error_reply('WRONGTYPE outbox queue is not a list') end
if not saveIfVersion(KEYS[1], ARGV[1], ARGV[2]) then return 0 end
for i = 5, #ARGV do outboxAppend(KEYS[2], KEYS[3], ARGV[i]) end
if #ARGV >= 5 then redis.call('ZADD', KEYS[4], 'NX', ARGV[3], ARGV[4]) end
return 1
