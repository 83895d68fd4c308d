-- Keeps the longest delay an incident's messages reached Slack with.
-- KEYS: the incident's delay. ARGV: delay ms. Returns 1 when it grew a whole minute.
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
if now <= before then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if math.floor(now / 60000) > math.floor(before / 60000) then return 1 end
return 0
