// Several schema changes around the failure: a dynamic sink applying schemas in the forward path
// commits each one, and each races the data commits. Counted where they happen:
//   - between data snapshots in the lookback (their schema ids differ);
//   - after the writer's last data commit: the table's current-schema-id is past the schema its
//     snapshots were written with (each newer schema id is one change), dated by the metadata-log
//     entries that are no data commit;
//   - commit exceptions that name a schema change ("current schema changed"): the conflict's cause.
// Fires with MIN_CHANGES changes, or with one schema change named by a commit exception.

import type { EvidenceItem } from "../../report/schema.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

const MIN_CHANGES = 2;
const SCHEMA_CHANGE =
  /schema (has )?changed|current schema|schema id|assert-current-schema-id|last-assigned-field-id/i;

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
    const items: EvidenceItem[] = [];
    if (changes.length > 0) {
      items.push({
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
        },
      });
    }

    // Changes after the writer's last data commit, which no data snapshot shows.
    const writerSchema = ctx.writerNewest?.schemaId ?? previous;
    let after = 0;
    if (writerSchema !== undefined && table.currentSchemaId !== writerSchema) {
      const newer = table.schemas.filter(
        (s) => s.schemaId > writerSchema && s.schemaId <= table.currentSchemaId,
      );
      after = Math.max(1, newer.length);
      const since = ctx.writerNewest?.timestampMs ?? w.startMs;
      const dataTimes = new Set(ctx.snapshots.map((s) => s.timestampMs));
      // The log lists the earlier metadata files; the current one is dated by last-updated-ms.
      const metadataOnly = [
        ...table.metadataLog,
        { metadataFile: "", timestampMs: table.lastUpdatedMs },
      ].filter((m) => m.timestampMs > since && !dataTimes.has(m.timestampMs));
      items.push({
        source: "catalog",
        detail: `current-schema-id is ${table.currentSchemaId} but ${ctx.writerNewest ? "the writer's last data commit" : "the newest data commit"} used schema ${writerSchema}: ${after} schema change(s) since${
          metadataOnly.length > 0
            ? `, metadata-only commits at ${metadataOnly
                .slice(-5)
                .map((m) => iso(m.timestampMs))
                .join(", ")}`
            : ""
        }`,
        data: {
          currentSchemaId: table.currentSchemaId,
          writerSchemaId: writerSchema,
          changesSinceLastCommit: after,
          metadataOnlyCommits: metadataOnly.slice(-5).map((m) => iso(m.timestampMs)),
        },
      });
    }

    const named = ctx.failures.filter((f) => f.kind === "commit-failed" && SCHEMA_CHANGE.test(f.line));
    if (named[0]) {
      items.push({
        source: named[0].source,
        detail: `The commit failed on a schema change: ${named[0].line}${named.length > 1 ? ` — seen ${named.length} times` : ""}`,
        data: { exception: named[0].line, count: named.length },
      });
    }
    const total = changes.length + after;
    if (total < MIN_CHANGES && !(named.length > 0 && total + named.length >= 1)) return null;
    return finding(
      "warning",
      named.length > 0
        ? `The schema changed ${Math.max(total, 1)} time(s) around the failure and the commit failed on it; each change is a commit that races the writer`
        : `The schema changed ${total} times around the failure; each change is a commit that races the writer`,
      items,
    );
  },
};
