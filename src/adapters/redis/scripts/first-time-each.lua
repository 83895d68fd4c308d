-- The replay guard's "first time seen?" for a batch of keys.
-- KEYS: the memory keys. ARGV: their expiries in seconds. Returns 1 per key set now, 0 per key seen.
--- @include "first-time"
local seen = {}
for i, key in ipairs(KEYS) do
  seen[i] = firstTime(key, ARGV[i]) and 1 or 0
end
return seen
