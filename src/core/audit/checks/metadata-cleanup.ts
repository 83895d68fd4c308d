// Every commit writes a metadata.json; without cleanup they pile up.
// warn: write.metadata.delete-after-commit.enabled not true, or previous-versions-max above 1,000.

import { effectiveNumber } from "../../properties.js";
import { renderSetProperties } from "../../statements.js";
import { type AuditRule, pick, result } from "../context.js";

const ENABLED = "write.metadata.delete-after-commit.enabled";
const MAX = "write.metadata.previous-versions-max";

export const metadataCleanup: AuditRule = {
  id: "metadata-cleanup",
  check(ctx) {
    const p = ctx.table.properties;
    const values = pick(p, [ENABLED, MAX]);
    values.metadataLogEntries = String(ctx.table.metadataLog.length);
    const kept = effectiveNumber(p, MAX);
    const proposedMax = String(Math.min(kept, 100));
    const fix = renderSetProperties(ctx.target, [
      [ENABLED, "true"],
      [MAX, proposedMax],
    ]);
    if (p[ENABLED]?.toLowerCase() !== "true") {
      return result(
        "warn",
        `${ENABLED} is ${p[ENABLED] ?? "unset (false)"}: old metadata files are never removed`,
        values,
        fix,
      );
    }
    if (kept > 1000)
      return result("warn", `${MAX} = ${kept} keeps a very long metadata history`, values, fix);
    return result("pass", `Old metadata files are removed after commit (keeping ${kept})`, values);
  },
};
