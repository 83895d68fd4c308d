-- Records slash commands once each: remembers each trigger id and appends the command to the inbox.
-- KEYS[1]: the stream; KEYS[2..]: the seen keys. ARGV[1]: their expiry in seconds, ARGV[2..]: the
-- entries. Returns 1 per entry appended, 0 per repeat.
--- @include "first-time"
local out = {}
for i = 2, #KEYS do
  if firstTime(KEYS[i], ARGV[1]) then
    redis.call('XADD', KEYS[1], '*', 'c', ARGV[i])
    out[i - 1] = 1
  else
    out[i - 1] = 0
  end
end
return out
