// Conflict retries at Iceberg's defaults (4 retries from 100 ms) while other committers are active.

import { plural } from "../../plural.js";
import { effectiveNumber, rawProperty, TABLE_DEFAULTS } from "../../properties.js";
import { otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const defaultRetryBudget: DiagnosisRule = {
  id: "default-retry-budget",
  evaluate(ctx) {
    const table = ctx.table;
    if (!table || !ctx.window || !ctx.troubled) return null;
    const retries = effectiveNumber(table.properties, "commit.retry.num-retries");
    if (retries > Number(TABLE_DEFAULTS["commit.retry.num-retries"])) return null;
    const { count, committers } = otherCommits(ctx, ctx.window.lookback, () => true);
    if (count === 0) return null;
    const others = committers.slice(0, 5).map((c) => c.name);
    const keys = [
      "commit.retry.num-retries",
      "commit.retry.min-wait-ms",
      "commit.retry.max-wait-ms",
      "commit.retry.total-timeout-ms",
    ] as const;
    const values = Object.fromEntries(keys.map((k) => [k, rawProperty(table.properties, k)]));
    return finding(
      "warning",
      `${retries === Number(TABLE_DEFAULTS["commit.retry.num-retries"]) ? "commit.retry.num-retries is at Iceberg's default of 4" : `commit.retry.num-retries is ${retries}, below Iceberg's default of 4,`} while ${plural(others.length, "other committer")} ${others.length === 1 ? "commits" : "commit"} around the failure`,
      [
        {
          source: "catalog",
          detail: keys.map((k) => `${k} = ${values[k] ?? `${TABLE_DEFAULTS[k]} (default)`}`).join(", "),
          data: values,
        },
        {
          source: "catalog",
          detail: `${plural(count, "commit")} by ${others.join(", ")} around the failure`,
          data: { otherCommits: count, committers: others },
        },
      ],
    );
  },
};
