-- A compare-and-set on a versioned hash (fields `version` and `data`): stores `data` as the next
-- version when the stored version is `expected` ("0" when absent). True when it stored.
local function saveIfVersion(key, expected, data)
  local v = redis.call('HGET', key, 'version')
  if (v or '0') ~= expected then return false end
  redis.call('HSET', key, 'version', tostring(tonumber(expected) + 1), 'data', data)
  return true
end
