// Every snapshot stays in metadata.json, which each commit rewrites: long lists slow every commit.
// warn: 5,000+ snapshots; fail: 20,000+.

import { groupDigits } from "../../plural.js";
import { effectiveNumber } from "../../properties.js";
import { renderExpireSnapshots } from "../../statements.js";
import { type AuditRule, result } from "../context.js";

const WARN_AT = 5_000;
const FAIL_AT = 20_000;

export const snapshotCount: AuditRule = {
  id: "snapshot-count",
  check(ctx) {
    const count = ctx.snapshots.length;
    const values = { snapshots: String(count) };
    const maxAge = effectiveNumber(ctx.table.properties, "history.expire.max-snapshot-age-ms");
    const fix = renderExpireSnapshots({ ...ctx.target, olderThanMs: ctx.now - maxAge, retainLast: 100 });
    if (count >= FAIL_AT)
      return result("fail", `${groupDigits(count)} snapshots: every commit rewrites them all`, values, fix);
    if (count >= WARN_AT)
      return result("warn", `${groupDigits(count)} snapshots: expire older ones`, values, fix);
    return result("pass", `${groupDigits(count)} snapshots`, values);
  },
};
