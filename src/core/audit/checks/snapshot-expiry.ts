// Snapshot expiry settings and whether expiry runs at all.
// fail: max-snapshot-age under 1 hour with min-snapshots-to-keep at 1 (a writer stalled for an
//       hour loses its last snapshot). warn: the oldest snapshot is older than 3x the max age
//       (expiry is not running).

import { effectiveNumber } from "../../properties.js";
import { renderExpireSnapshots, renderSetProperties } from "../../statements.js";
import { formatDuration } from "../../words/duration.js";
import { type AuditRule, pick, result } from "../context.js";

const AGE = "history.expire.max-snapshot-age-ms";
const KEEP = "history.expire.min-snapshots-to-keep";
const HOUR_MS = 3_600_000;

export const snapshotExpiry: AuditRule = {
  id: "snapshot-expiry",
  check(ctx) {
    const p = ctx.table.properties;
    const values = pick(p, [AGE, KEEP]);
    const maxAge = effectiveNumber(p, AGE);
    const keep = effectiveNumber(p, KEEP);
    const oldest = ctx.snapshots[0];
    const oldestAge = oldest ? ctx.now - oldest.timestampMs : 0;
    values.oldestSnapshotAgeMs = oldest ? String(oldestAge) : null;
    if (maxAge < HOUR_MS && keep <= 1) {
      return result(
        "fail",
        `Snapshots expire after ${formatDuration(maxAge)} keeping only ${keep}: a writer stalled that long loses its last commit`,
        values,
        renderSetProperties(ctx.target, [
          [AGE, "432000000"],
          [KEEP, "100"],
        ]),
      );
    }
    if (oldest && oldestAge > 3 * maxAge) {
      return result(
        "warn",
        `The oldest snapshot is ${formatDuration(oldestAge)} old, over 3x the ${formatDuration(maxAge)} max age: expiry is not running`,
        values,
        renderExpireSnapshots({
          ...ctx.target,
          olderThanMs: ctx.now - maxAge,
          retainLast: Math.max(keep, 100),
        }),
      );
    }
    return result(
      "pass",
      `Snapshots older than ${formatDuration(maxAge)} are expired (keeping at least ${keep})`,
      values,
    );
  },
};
