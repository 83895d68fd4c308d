-- True the first time `key` is seen within `ttlSeconds`: remembers it (SET NX EX) and says whether
-- it was new. Every "seen before?" check (replay guard, command inbox, alert intake) is this one.
local function firstTime(key, ttlSeconds)
  return redis.call('SET', key, '1', 'EX', ttlSeconds, 'NX') ~= false
end
