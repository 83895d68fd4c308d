-- Claims due incidents by pushing them a lease ahead.
-- KEYS: due. ARGV: now, lease ms, limit. Returns the incidents claimed.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id) end
return ids
