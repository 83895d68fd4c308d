-- Opens the table's incident, or joins the open one (counting the alert).
-- KEYS: open key, sequence, open set, recent tables. ARGV: table, now, channel, incident key
-- prefix, incident format. Returns {id, 1 when opened here}.
--- @include "open-incident"
local existing = redis.call('GET', KEYS[1])
if existing then
  redis.call('HINCRBY', ARGV[4] .. existing, 'alertCount', 1)
  return {existing, 0}
end
local id = 'inc-' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], id)
openIncident(ARGV[4] .. id, KEYS[3], KEYS[4], id, ARGV[1], ARGV[3], ARGV[2], ARGV[5], {'diagnoses', 0})
return {id, 1}
