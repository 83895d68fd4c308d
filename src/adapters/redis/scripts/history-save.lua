-- Saves a closed incident in its table's history and trims the history to the retention window
-- and to the most incidents a table keeps.
-- KEYS: records hash, index zset, tables zset, version counter. ARGV: incident id, JSON, closed
-- ms, oldest kept ms, ttl ms, table, max per table. Returns how many records were dropped.
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
local count = redis.call('ZCARD', KEYS[2])
local extra = count - tonumber(ARGV[7])
if extra > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  for _, id in ipairs(oldest) do table.insert(old, id) end
end
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])
redis.call('INCR', KEYS[4])
return #old
