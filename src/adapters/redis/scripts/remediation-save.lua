-- Saves an incident's remediation record if nobody saved it since it was read.
-- KEYS: the record's hash. ARGV: expected version ("0" when absent), new data. Returns 1 when saved.
--- @include "save-if-version"
return saveIfVersion(KEYS[1], ARGV[1], ARGV[2]) and 1 or 0
