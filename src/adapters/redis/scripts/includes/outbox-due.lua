-- An incident's outbox queue is due again at `dueMs`, or no longer due once it is empty.
local function outboxDue(queueKey, dueKey, incidentId, dueMs)
  if redis.call('LLEN', queueKey) == 0 then redis.call('ZREM', dueKey, incidentId)
  else redis.call('ZADD', dueKey, dueMs, incidentId) end
end
