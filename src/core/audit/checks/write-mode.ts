// Copy-on-write rewrites whole files for a few changed rows, so frequent row-level commits hold
// long conflict windows. warn: 4+ copy-on-write row-level commits in 7 days with the modes at
// copy-on-write. fail: merge-on-read on a format v1 table (v1 has no delete files).

import { effectiveProperty } from "../../properties.js";
import { renderSetProperties } from "../../statements.js";
import { type AuditRule, pick, result, sinceDays } from "../context.js";

const KEYS = ["write.delete.mode", "write.update.mode", "write.merge.mode"] as const;
const FREQUENT = 4;

export const writeMode: AuditRule = {
  id: "write-mode",
  check(ctx) {
    const p = ctx.table.properties;
    const values = pick(p, KEYS);
    values["format-version"] = String(ctx.table.formatVersion);
    const modes = KEYS.map((k) => effectiveProperty(p, k));
    if (ctx.table.formatVersion < 2 && modes.includes("merge-on-read")) {
      return result(
        "fail",
        "merge-on-read needs table format v2; this table is v1",
        values,
        renderSetProperties(ctx.target, [["format-version", "2"]]),
      );
    }
    let rewrites = 0;
    for (let i = sinceDays(ctx, 7); i < ctx.snapshots.length; i++) {
      const s = ctx.snapshots[i]!;
      if (
        (s.operation === "overwrite" || s.operation === "delete") &&
        Number(s.summary["deleted-data-files"] ?? 0) > 0
      )
        rewrites++;
    }
    values.copyOnWriteCommitsLast7Days = String(rewrites);
    if (rewrites >= FREQUENT && modes.every((m) => m === "copy-on-write")) {
      return result(
        "warn",
        `${rewrites} row-level commits rewrote whole files in 7 days; merge-on-read keeps those commits short`,
        values,
        renderSetProperties(
          ctx.target,
          KEYS.map((k) => [k, "merge-on-read"]),
        ),
      );
    }
    return result(
      "pass",
      `Write modes fit the table (${rewrites} copy-on-write row-level commits in 7 days)`,
      values,
    );
  },
};
