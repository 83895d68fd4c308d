-- Closes an incident: frees the table's open key (if it still names it), moves the incident from
-- the open set to the closed set and bumps its card.
-- KEYS: open key, open set, incident hash, closed set. ARGV: id, state, now. Returns the card version.
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], 'state', ARGV[2], 'resolvedAt', ARGV[3], 'updatedAt', ARGV[3])
return redis.call('HINCRBY', KEYS[3], 'cardVersion', 1)
