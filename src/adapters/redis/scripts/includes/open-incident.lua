-- Opens incident `id` for table `tbl`: its hash, and its place in the open set and the recent
-- tables. `extra` holds fields beyond those every new incident has.
local function openIncident(incidentKey, openSet, recentTables, id, tbl, channel, now, format, extra)
  redis.call('HSET', incidentKey, 'id', id, 'table', tbl, 'state', 'open', 'channel', channel,
    'openedAt', now, 'updatedAt', now, 'alertCount', 1, 'cardVersion', 1, 'format', format, unpack(extra))
  redis.call('ZADD', openSet, now, id)
  redis.call('ZADD', recentTables, now, tbl)
end
