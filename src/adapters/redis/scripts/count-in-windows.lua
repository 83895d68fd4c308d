-- Fixed-window counters: counts one in each key, in order, each expiring with its window. A key
-- over its limit stops the count there, so the keys after it (answered -1) are not used up.
-- KEYS: the counters. ARGV[1]: their expiry in ms; ARGV[1 + i]: the limit of KEYS[i].
local counts, over = {}, false
for i, key in ipairs(KEYS) do
  if over then
    counts[i] = -1
  else
    counts[i] = redis.call('INCR', key)
    if counts[i] == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
    over = counts[i] > tonumber(ARGV[i + 1])
  end
end
return counts
