// Without clustering by partition, each write task opens a file in every partition it sees.
// warn: a partitioned table with write.distribution-mode unset or none, or range without a sort
// order; fail: a value Iceberg does not accept.

import { renderSetProperties } from "../../statements.js";
import { type AuditRule, result } from "../context.js";

const KEY = "write.distribution-mode";
const VALID = new Set(["none", "hash", "range"]);

export const distributionMode: AuditRule = {
  id: "distribution-mode",
  check(ctx) {
    const t = ctx.table;
    const value = t.properties[KEY] ?? null;
    const values = {
      [KEY]: value,
      partitionFields: t.partitionFields.join(",") || null,
      sortOrderFields: String(t.sortOrderFieldCount),
    };
    const proposed = t.sortOrderFieldCount > 0 ? "range" : "hash";
    const fix = renderSetProperties(ctx.target, [[KEY, proposed]]);
    if (value !== null && !VALID.has(value))
      return result("fail", `${KEY} = ${value} is not none, hash or range`, values, fix);
    if (t.partitionFieldCount === 0)
      return result("pass", "Unpartitioned table: distribution mode matters little", values);
    if (value === null || value === "none") {
      return result(
        "warn",
        `Partitioned table with ${KEY} ${value ?? "unset"}: writers may open a file per partition per task`,
        values,
        fix,
      );
    }
    if (value === "range" && t.sortOrderFieldCount === 0) {
      return result(
        "warn",
        "range distribution without a sort order; hash clusters by partition more cheaply",
        values,
        renderSetProperties(ctx.target, [[KEY, "hash"]]),
      );
    }
    return result("pass", `${KEY} = ${value}`, values);
  },
};
