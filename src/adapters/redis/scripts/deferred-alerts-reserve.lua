-- Grants openings from the minute's budget ARGV[1] to the tables ARGV[2..], in order. A table is
-- counted once a minute however many notifications name it (a storm repeats each table), and a
-- table already counted this minute is granted again at no cost. The set expires with its minute.
-- KEYS: the minute's set. Returns the tables granted.
local limit = tonumber(ARGV[1])
local granted = {}
for i = 2, #ARGV do
  local t = ARGV[i]
  if redis.call('SISMEMBER', KEYS[1], t) == 1 then
    table.insert(granted, t)
  elseif redis.call('SCARD', KEYS[1]) < limit then
    redis.call('SADD', KEYS[1], t)
    table.insert(granted, t)
  end
end
redis.call('PEXPIRE', KEYS[1], 120000)
return granted
