// File size target and what the table actually holds.
// fail: write.target-file-size-bytes under 8 MiB. warn: under 64 MiB, or 1,000+ data files that
// average under 16 MiB (small files: compact the partitions the writer has left).

import { hotPartitionFilter } from "../../diagnosis/next-step.js";
import { groupDigits } from "../../plural.js";
import { renderRewriteDataFiles, renderSetProperties } from "../../statements.js";
import { type AuditRule, currentSnapshot, result, summaryNumber } from "../context.js";

const KEY = "write.target-file-size-bytes";
const MIB = 1024 * 1024;
const DEFAULT = "536870912";

export const targetFileSize: AuditRule = {
  id: "target-file-size",
  check(ctx) {
    const raw = ctx.table.properties[KEY] ?? null;
    const target = Number(raw ?? DEFAULT);
    const current = currentSnapshot(ctx);
    const files = summaryNumber(current, "total-data-files");
    const bytes = summaryNumber(current, "total-files-size");
    const average = files > 0 ? bytes / files : 0;
    const values = {
      [KEY]: raw,
      totalDataFiles: String(files),
      averageFileBytes: String(Math.round(average)),
    };
    const raise = renderSetProperties(ctx.target, [[KEY, DEFAULT]]);
    if (Number.isFinite(target) && target < 8 * MIB)
      return result("fail", `${KEY} is ${raw} bytes: every write produces tiny files`, values, raise);
    if (Number.isFinite(target) && target < 64 * MIB)
      return result("warn", `${KEY} is ${raw} bytes, well under the 512 MiB default`, values, raise);
    if (files >= 1000 && average < 16 * MIB) {
      const filter = hotPartitionFilter(ctx.table.partitionFields);
      return result(
        "warn",
        `${groupDigits(files)} data files averaging ${(average / MIB).toFixed(1)} MiB: compact them`,
        values,
        renderRewriteDataFiles({ ...ctx.target, ...(filter ? { where: filter } : {}) }),
      );
    }
    return result(
      "pass",
      `Target ${Math.round(target / MIB)} MiB; files average ${(average / MIB).toFixed(1)} MiB`,
      values,
    );
  },
};
