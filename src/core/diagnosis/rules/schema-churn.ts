// Several schema changes around the failure: a dynamic sink applying schemas in the forward
// path commits each one, and each races the data commits.

import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

const MIN_CHANGES = 2;

export const schemaChurn: DiagnosisRule = {
  id: "schema-churn",
  evaluate(ctx) {
    const w = ctx.window;
    const table = ctx.table;
    if (!w || !table || !ctx.troubled) return null;
    const changes: Array<{ from: number; to: number; atMs: number; snapshotId: string }> = [];
    let previous: number | undefined;
    // Start one snapshot early so a change on the first snapshot in the lookback is seen.
    for (let i = Math.max(0, w.lookback.from - 1); i < w.lookback.to; i++) {
      const s = ctx.snapshots[i]!;
      if (s.schemaId === undefined) continue;
      if (previous !== undefined && s.schemaId !== previous) {
        changes.push({ from: previous, to: s.schemaId, atMs: s.timestampMs, snapshotId: s.snapshotId });
      }
      previous = s.schemaId;
    }
    if (previous !== undefined && table.currentSchemaId !== previous) {
      changes.push({
        from: previous,
        to: table.currentSchemaId,
        atMs: table.lastUpdatedMs,
        snapshotId: "(no data commit yet)",
      });
    }
    if (changes.length < MIN_CHANGES) return null;
    return finding(
      "schema-churn",
      "warning",
      `The schema changed ${changes.length} times around the failure; each change is a commit that races the writer`,
      [
        {
          source: "catalog",
          detail: changes
            .slice(-5)
            .map((c) => `schema ${c.from} → ${c.to} at ${iso(c.atMs)}`)
            .join("; "),
          data: {
            changes: changes.slice(-5).map((c) => ({
              fromSchemaId: c.from,
              toSchemaId: c.to,
              at: iso(c.atMs),
              snapshotId: c.snapshotId,
            })),
            count: changes.length,
            currentSchemaId: table.currentSchemaId,
          },
        },
      ],
    );
  },
};
