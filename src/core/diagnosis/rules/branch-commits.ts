// The writer commits to a branch. A branch separates the data, not the commit: it goes through
// the same metadata swap and retries as main.

import type { EvidenceItem } from "../../report/schema.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

export const branchCommits: DiagnosisRule = {
  id: "branch-commits",
  evaluate(ctx) {
    const items: EvidenceItem[] = [];
    const table = ctx.table;
    if (table && ctx.writerNewest) {
      const head = ctx.writerNewest.snapshotId;
      for (const [name, ref] of Object.entries(table.refs)) {
        if (name === "main" || ref.type !== "branch" || ref.snapshotId !== head) continue;
        items.push({
          source: "catalog",
          detail: `Branch ${name} points at the writer's newest snapshot ${head} (${iso(ctx.writerNewest.timestampMs)})`,
          data: { branch: name, snapshotId: head },
        });
      }
    }
    if (ctx.connect) {
      const config = ctx.connect.config;
      const tableKey = `iceberg.table.${ctx.tableName}.commit-branch`;
      for (const key of [tableKey, "iceberg.tables.default-commit-branch"]) {
        const value = config[key];
        if (value && value !== "main") {
          items.push({ source: "connect", detail: `${key} = ${value}`, data: { key, value } });
          break;
        }
      }
    }
    return finding(
      "info",
      "The writer commits to a branch, which still shares the table's commit path and conflicts with everything else",
      items,
    );
  },
};
