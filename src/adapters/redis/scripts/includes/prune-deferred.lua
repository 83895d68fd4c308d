-- Drops tables that waited since before `oldestKept` (ms) from the order, with their alert hashes
-- (named hashPrefix .. table).
local function pruneDeferred(order, hashPrefix, oldestKept)
  local stale = redis.call('ZRANGEBYSCORE', order, '-inf', '(' .. oldestKept)
  for _, t in ipairs(stale) do redis.call('DEL', hashPrefix .. t) end
  if #stale > 0 then redis.call('ZREMRANGEBYSCORE', order, '-inf', '(' .. oldestKept) end
end
