-- Removes a closed incident's keys, only if it is still closed (a state written since would say so).
-- KEYS: closed set, incident hash, then the incident's other keys. ARGV: id. Returns 1 when removed.
local state = redis.call('HGET', KEYS[2], 'state')
if state == 'resolved' or state == 'stopped' or state == false then
  for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
redis.call('ZREM', KEYS[1], ARGV[1])
return 0
