#!/usr/bin/env bash
# Runs a command (default: npm test) while two CPU-bound processes keep the machine busy, to show
# that no test leans on a wall-clock deadline a loaded machine can miss.
#   scripts/busy-machine.sh                 # npm test once
#   RUNS=3 scripts/busy-machine.sh          # three times in a row, stopping at the first failure
#   scripts/busy-machine.sh npx vitest run test/unit
set -u
RUNS="${RUNS:-1}"
if [ "$#" -eq 0 ]; then set -- npm test; fi

burners=()
for _ in 1 2; do
  node -e 'for (;;) {}' &
  burners+=("$!")
done
stop_burners() { kill "${burners[@]}" 2>/dev/null; wait "${burners[@]}" 2>/dev/null; }
trap stop_burners EXIT INT TERM

status=0
for run in $(seq 1 "$RUNS"); do
  echo "== run ${run}/${RUNS} beside two busy processes (${burners[*]}): $*"
  started=$(date +%s)
  "$@"
  status=$?
  echo "== run ${run}: exit ${status} after $(( $(date +%s) - started )) s"
  [ "$status" -eq 0 ] || break
done
exit "$status"
