#!/usr/bin/env bash
# Runs the README's first two commands in a fresh clone of this commit, as a newcomer would, and
# fails when one of them fails or when the project gets installed or built a second time (npm's
# exec cache gains an entry, or the build in the clone changes after `npm ci`).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The first two command lines of the Quick start block, comments stripped.
mapfile -t commands < <(awk '
  /^## Quick start/ { inSection = 1 }
  inSection && /^```sh/ { inBlock = 1; next }
  inBlock && /^```/ { exit }
  inBlock { sub(/[[:space:]]+#.*/, ""); if (length($0) > 0) print }
' "$repo/README.md" | head -n 2)
if [ "${#commands[@]}" -ne 2 ]; then
  echo "fresh-clone check: README.md has no Quick start block with two commands" >&2
  exit 1
fi

git clone --quiet --no-hardlinks "$repo" "$work/clone"
npx_cache="$(npm config get cache)/_npx"
before="$(ls -1 "$npx_cache" 2>/dev/null | sort || true)"

cd "$work/clone"
echo "fresh clone: ${commands[0]}"
bash -c "${commands[0]}" >"$work/first.log" 2>&1 || { tail -n 40 "$work/first.log" >&2; exit 1; }
build_stamp="$(stat -c %Y.%s dist/cli/main.js)"
echo "fresh clone: ${commands[1]}"
bash -c "${commands[1]}" >"$work/second.log" 2>&1 || { tail -n 40 "$work/second.log" >&2; exit 1; }

after="$(ls -1 "$npx_cache" 2>/dev/null | sort || true)"
if [ "$before" != "$after" ]; then
  echo "fresh-clone check: '${commands[1]}' installed the project into npm's exec cache ($npx_cache)" >&2
  exit 1
fi
if [ "$(stat -c %Y.%s dist/cli/main.js)" != "$build_stamp" ]; then
  echo "fresh-clone check: '${commands[1]}' built the project a second time" >&2
  exit 1
fi
grep -q "resolved" "$work/second.log" || {
  echo "fresh-clone check: the demo printed no resolved incident" >&2
  tail -n 40 "$work/second.log" >&2
  exit 1
}
echo "fresh clone: both commands ran on the one build made by npm ci"
