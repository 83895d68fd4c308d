-- Appends to a table's audit trail. Entries older than the retention go (stream ids carry Redis's
-- time), and a table with no entry for that long goes entirely.
-- KEYS: the table's stream. ARGV: max entries, retention ms, then field/value pairs.
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 3))
local minId = tonumber(string.match(id, '^(%d+)')) - tonumber(ARGV[2])
if minId > 0 then redis.call('XTRIM', KEYS[1], 'MINID', minId) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id
