-- Makes a finished sweep the latest one: its results and scores replace the previous ones, the
-- digest is stored, and the running-sweep lock is let go. Runs once per sweep id (a retried
-- finish finds latest already pointing at it).
-- KEYS: latest id, the sweep's results, its scores, latest results, latest scores, latest digest,
-- current sweep, the sweep's pending set. ARGV: sweep id, digest JSON.
if redis.call('GET', KEYS[1]) == ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[4]) else redis.call('DEL', KEYS[4]) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('RENAME', KEYS[3], KEYS[5]) else redis.call('DEL', KEYS[5]) end
redis.call('PERSIST', KEYS[4])
redis.call('PERSIST', KEYS[5])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[6], ARGV[2])
redis.call('DEL', KEYS[8])
if redis.call('GET', KEYS[7]) == ARGV[1] then redis.call('DEL', KEYS[7]) end
return 1
