// Conflict retries sized for the table's concurrency.
// fail: num-retries below Iceberg's default of 4 (someone lowered it).
// warn: two or more committers in the last day with retries still at 4 or less, or
//       retries x max-wait longer than the total timeout (the last retries can never run).

import { plural } from "../../plural.js";
import { effectiveNumber } from "../../properties.js";
import { renderSetProperties } from "../../statements.js";
import { type AuditRule, committersSince, pick, result } from "../context.js";

const KEYS = [
  "commit.retry.num-retries",
  "commit.retry.min-wait-ms",
  "commit.retry.max-wait-ms",
  "commit.retry.total-timeout-ms",
];

export const retryBudget: AuditRule = {
  id: "retry-budget",
  check(ctx) {
    const p = ctx.table.properties;
    const values = pick(p, KEYS);
    const retries = effectiveNumber(p, "commit.retry.num-retries");
    const maxWait = effectiveNumber(p, "commit.retry.max-wait-ms");
    const total = effectiveNumber(p, "commit.retry.total-timeout-ms");
    const committers = committersSince(ctx, 1).size;
    values.committersLastDay = String(committers);
    // The fix: retries to 10 (or double, up to 50), first wait to 1 s, within the total timeout.
    const proposed = retries < 10 ? 10 : Math.max(retries, Math.min(retries * 2, 50));
    const raise: [string, string][] = [["commit.retry.num-retries", String(proposed)]];
    if (effectiveNumber(p, "commit.retry.min-wait-ms") < 1000)
      raise.push(["commit.retry.min-wait-ms", "1000"]);
    if (proposed * maxWait > total)
      raise.push(["commit.retry.max-wait-ms", String(Math.floor(total / proposed))]);
    const fix = renderSetProperties(ctx.target, raise);
    if (retries < 4)
      return result(
        "fail",
        `commit.retry.num-retries is ${retries}, below Iceberg's default of 4`,
        values,
        fix,
      );
    if (committers >= 2 && retries <= 4) {
      return result(
        "warn",
        `${committers} committers wrote in the last day but retries are at ${retries}; raise them for a shared table`,
        values,
        fix,
      );
    }
    if (retries * maxWait > total) {
      const fixed = renderSetProperties(ctx.target, [
        ["commit.retry.max-wait-ms", String(Math.floor(total / retries))],
      ]);
      return result(
        "warn",
        `${retries} retries x ${maxWait} ms max wait exceed the ${total} ms total timeout; the last retries never run`,
        values,
        fixed,
      );
    }
    return result(
      "pass",
      `Retry budget of ${retries} fits ${plural(committers, "committer")} in the last day`,
      values,
    );
  },
};
