-- Marks a sweep task done and tells how many are left, in one step (two finishing tasks cannot
-- both miss 0), keeping the table's outcome when the task had one.
-- KEYS: pending set, results hash, scores. ARGV: task id, entry ('' for none), outcome, score
-- ('' for none), keep seconds. Returns the tasks left.
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  if ARGV[4] ~= '' then redis.call('ZADD', KEYS[3], tonumber(ARGV[4]), ARGV[2]) end
  redis.call('EXPIRE', KEYS[2], ARGV[5])
  redis.call('EXPIRE', KEYS[3], ARGV[5])
end
redis.call('SREM', KEYS[1], ARGV[1])
return redis.call('SCARD', KEYS[1])
