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

/** The audit's fix: retries to 10 (or double, up to 50), first wait to 1 s, within the total timeout. */
function retryFix(properties: Record<string, string>): [string, string][] {
  const retries = effectiveNumber(properties, "commit.retry.num-retries");
  const maxWait = effectiveNumber(properties, "commit.retry.max-wait-ms");
  const total = effectiveNumber(properties, "commit.retry.total-timeout-ms");
  const proposed = retries < 10 ? 10 : Math.max(retries, Math.min(retries * 2, 50));
  const fix: [string, string][] = [["commit.retry.num-retries", String(proposed)]];
  if (effectiveNumber(properties, "commit.retry.min-wait-ms") < 1000)
    fix.push(["commit.retry.min-wait-ms", "1000"]);
  if (proposed * maxWait > total)
    fix.push(["commit.retry.max-wait-ms", String(Math.floor(total / proposed))]);
  return fix;
}

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
    const fix = renderSetProperties(ctx.target, retryFix(p));
    if (retries < 4)
      return result(
        "retry-budget",
        "fail",
        `commit.retry.num-retries is ${retries}, below Iceberg's default of 4`,
        values,
        fix,
      );
    if (committers >= 2 && retries <= 4) {
      return result(
        "retry-budget",
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
        "retry-budget",
        "warn",
        `${retries} retries x ${maxWait} ms max wait exceed the ${total} ms total timeout; the last retries never run`,
        values,
        fixed,
      );
    }
    return result(
      "retry-budget",
      "pass",
      `Retry budget of ${retries} fits ${plural(committers, "committer")} in the last day`,
      values,
    );
  },
};
