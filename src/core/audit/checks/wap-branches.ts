// Write-audit-publish branches that were never published or dropped keep snapshots and files alive.
// warn: a branch other than main whose head is older than 7 days.

import { iso } from "../../diagnosis/snapshots.js";
import { renderDropBranch } from "../../statements.js";
import { type AuditRule, DAY_MS, result } from "../context.js";

export const wapBranches: AuditRule = {
  id: "wap-branches",
  check(ctx) {
    const t = ctx.table;
    const branches = Object.entries(t.refs).filter(([name, ref]) => name !== "main" && ref.type === "branch");
    const values: Record<string, string | null> = {
      "write.wap.enabled": t.properties["write.wap.enabled"] ?? null,
      branches: branches.map(([name]) => name).join(",") || null,
    };
    const heads = new Map(branches.map(([name, ref]) => [ref.snapshotId, name]));
    const headTimes = new Map<string, number>();
    for (let i = ctx.snapshots.length - 1; i >= 0 && headTimes.size < heads.size; i--) {
      const s = ctx.snapshots[i]!;
      const name = heads.get(s.snapshotId);
      if (name !== undefined) headTimes.set(name, s.timestampMs);
    }
    const stale = [...headTimes.entries()]
      .filter(([, at]) => ctx.now - at > 7 * DAY_MS)
      .sort((a, b) => a[1] - b[1]);
    const oldest = stale[0];
    if (oldest) {
      values.staleBranches = stale.map(([name]) => name).join(",");
      return result(
        "warn",
        `${stale.length} branch(es) not updated for over 7 days (oldest ${oldest[0]}, head at ${iso(oldest[1])}): publish or drop them`,
        values,
        renderDropBranch(ctx.target, oldest[0]),
      );
    }
    return result(
      "pass",
      branches.length > 0
        ? `${branches.length} branch(es), all recently updated`
        : "No branches besides main",
      values,
    );
  },
};
