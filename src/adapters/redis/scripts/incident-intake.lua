-- Alert intake in one round trip: for each alert, the repeat check, then open-or-join (firing) or
-- the resolved note, their timeline entries, and an intake promise for the work an opened incident
-- or a changed card needs. The promises live next to the incident, written by this same script
-- (which BullMQ's add cannot join), so the work is never lost when the process dies between this
-- script and the enqueue (see services/intake-promises.ts; members as intake-promises.ts reads them).
-- Each incident keeps the fingerprints of its alerts still firing: a resolve of one while others
-- fire is noted but does not clear the alert, and a re-fire after all cleared brings it back; the
-- card is edited whenever that set changes.
-- KEYS: sequence, open set, recent tables, intake promises, then per alert: seen key, open key.
-- ARGV: now, incident key prefix, timeline key prefix, repeat TTL, timeline max length, wall-clock
-- now (promises are swept by age, whatever clock incidents are dated by), firing-set key prefix,
-- incident format, then per alert: status, table, channel, alert name, timeline text, fingerprint.
-- Returns per alert {kind, id, version}: 0 repeat, 1 joined, 2 opened, 3 resolved noted,
-- 4 nothing open; version > 0 on the row that carries its incident's card edit.
--- @include "first-time"
--- @include "open-incident"
local now, incidentPrefix, timelinePrefix, firingPrefix, format = ARGV[1], ARGV[2], ARGV[3], ARGV[7], ARGV[8]
local out = {}
local n = (#KEYS - 4) / 2
-- One card edit per incident per batch, reported on its last alert; none for incidents opened in
-- this batch, whose first card is drawn from the state as it is when posted.
local cardRow, openedHere = {}, {}
for i = 1, n do
  local seen, openKey = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  local a = 8 + (i - 1) * 6
  local status, tbl, channel, name, text, fp =
    ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]
  if not firstTime(seen, ARGV[4]) then
    out[i] = {0, '', 0}
  elseif status == 'firing' then
    local id = redis.call('GET', openKey)
    local kind = 1
    if id then
      local key = incidentPrefix .. id
      redis.call('HINCRBY', key, 'alertCount', 1)
      if redis.call('SADD', firingPrefix .. id, fp) == 1 then
        redis.call('HSET', key, 'firingAlerts', redis.call('SCARD', firingPrefix .. id), 'updatedAt', now)
        redis.call('HDEL', key, 'alertResolvedAt')
        cardRow[id] = i
      end
    else
      kind = 2
      id = 'inc-' .. redis.call('INCR', KEYS[1])
      redis.call('SET', openKey, id)
      openIncident(incidentPrefix .. id, KEYS[2], KEYS[3], id, tbl, channel, now, format,
        {'diagnoses', 1, 'lastAlertName', name, 'firingAlerts', 1})
      redis.call('SADD', firingPrefix .. id, fp)
      openedHere[id] = true
      redis.call('XADD', timelinePrefix .. id, 'MAXLEN', '~', ARGV[5], '*', 'at', now, 'kind', 'opened',
        'text', 'Incident opened for ' .. tbl)
      redis.call('ZADD', KEYS[4], ARGV[6], 'open|' .. id)
    end
    redis.call('XADD', timelinePrefix .. id, 'MAXLEN', '~', ARGV[5], '*', 'at', now, 'kind', 'alert', 'text', text)
    out[i] = {kind, id, 0}
  else
    local id = redis.call('GET', openKey)
    if id then
      local key = incidentPrefix .. id
      redis.call('XADD', timelinePrefix .. id, 'MAXLEN', '~', ARGV[5], '*', 'at', now, 'kind', 'alert-resolved',
        'text', text)
      redis.call('SREM', firingPrefix .. id, fp)
      local firing = redis.call('SCARD', firingPrefix .. id)
      redis.call('HSET', key, 'firingAlerts', firing, 'updatedAt', now)
      -- Only when no alert of the table still fires has "the alert" cleared.
      if firing == 0 then redis.call('HSET', key, 'alertResolvedAt', now) end
      cardRow[id] = i
      out[i] = {3, id, 0}
    else
      out[i] = {4, '', 0}
    end
  end
end
for id, row in pairs(cardRow) do
  if not openedHere[id] then
    local version = redis.call('HINCRBY', incidentPrefix .. id, 'cardVersion', 1)
    redis.call('ZADD', KEYS[4], ARGV[6], 'card|' .. id .. '|' .. version)
    out[row][3] = version
  end
end
return out
