-- KEYS: the order. ARGV: alert hash prefix, oldest kept ms.
--- @include "prune-deferred"
pruneDeferred(KEYS[1], ARGV[1], ARGV[2])
