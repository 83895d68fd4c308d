// Row-level commands validate against concurrent commits under serializable (the default).
// warn: snapshot isolation, which must be a documented decision (a MERGE can miss concurrent rows).
// fail: a value Iceberg does not accept.

import { renderSetProperties } from "../../statements.js";
import { type AuditRule, pick, result } from "../context.js";

const KEYS = ["write.delete.isolation-level", "write.update.isolation-level", "write.merge.isolation-level"];
const VALID = new Set(["serializable", "snapshot"]);

export const isolationLevel: AuditRule = {
  id: "isolation-level",
  check(ctx) {
    const values = pick(ctx.table.properties, KEYS);
    const invalid = KEYS.filter((k) => values[k] !== null && !VALID.has(values[k]!.toLowerCase()));
    const relaxed = KEYS.filter((k) => values[k]?.toLowerCase() === "snapshot");
    const offending = invalid.length > 0 ? invalid : relaxed;
    const fix =
      offending.length > 0
        ? renderSetProperties(
            ctx.target,
            offending.map((k) => [k, "serializable"]),
          )
        : undefined;
    if (invalid.length > 0)
      return result("fail", `${invalid.join(", ")} not serializable or snapshot`, values, fix);
    if (relaxed.length > 0) {
      return result(
        "warn",
        `${relaxed.join(", ")} set to snapshot: commands can miss rows appended concurrently; keep only as a documented decision`,
        values,
        fix,
      );
    }
    return result("pass", "Row-level commands use serializable isolation", values);
  },
};
