// Merge-on-read leaves delete files that every read must apply; they need regular compaction.
// warn: delete files present and no rewrite (replace) commit in 7 days; fail: 500+ of them.

import { iso } from "../../diagnosis/snapshots.js";
import { renderRewritePositionDeleteFiles } from "../../statements.js";
import { type AuditRule, currentSnapshot, DAY_MS, pick, result, summaryNumber } from "../context.js";

const FAIL_AT = 500;

export const deleteFileCompaction: AuditRule = {
  id: "delete-file-compaction",
  check(ctx) {
    const current = currentSnapshot(ctx);
    const deleteFiles = summaryNumber(current, "total-delete-files");
    const values = pick(ctx.table.properties, ["write.delete.mode", "write.update.mode", "write.merge.mode"]);
    values["total-delete-files"] = String(deleteFiles);
    values["total-position-deletes"] = String(summaryNumber(current, "total-position-deletes"));
    values["total-equality-deletes"] = String(summaryNumber(current, "total-equality-deletes"));
    let lastRewrite: number | undefined;
    for (let i = ctx.snapshots.length - 1; i >= 0; i--) {
      if (ctx.snapshots[i]!.operation === "replace") {
        lastRewrite = ctx.snapshots[i]!.timestampMs;
        break;
      }
    }
    values.lastRewriteAt = lastRewrite === undefined ? null : iso(lastRewrite);
    if (deleteFiles === 0) return result("pass", "No delete files to compact", values);
    const recent = lastRewrite !== undefined && ctx.now - lastRewrite <= 7 * DAY_MS;
    if (recent)
      return result("pass", `${deleteFiles} delete files; compaction ran at ${iso(lastRewrite!)}`, values);
    const fix = renderRewritePositionDeleteFiles(ctx.target);
    return result(
      deleteFiles >= FAIL_AT ? "fail" : "warn",
      `${deleteFiles} delete files and no compaction in the last 7 days; every read applies them`,
      values,
      fix,
    );
  },
};
