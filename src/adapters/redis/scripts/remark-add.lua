-- Keeps a reply in the thread once (by its ts), and only while the incident is under the bound.
-- KEYS: the remarks hash. ARGV: ts, entry JSON, max count. Returns 1 when kept.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
