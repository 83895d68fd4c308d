-- Keeps a table's alerts until the cap allows its incident.
-- KEYS: order, the table's hash. ARGV: hash prefix, oldest kept ms, now, max tables, ttl ms,
-- table, then pairs of (fingerprint, alert JSON or "" for a resolved one). Returns 0 when the
-- table is new and the set is full (nothing kept), else 1.
--- @include "prune-deferred"
pruneDeferred(KEYS[1], ARGV[1], ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[6]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
for i = 7, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[2], ARGV[i])
  else redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
if redis.call('HLEN', KEYS[2]) == 0 then
  -- Every alert of the table resolved before its turn: nothing to open.
  redis.call('ZREM', KEYS[1], ARGV[6])
  redis.call('DEL', KEYS[2])
  return 1
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
