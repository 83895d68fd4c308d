// last-updated-ms moved past the newest snapshot: a property, schema or spec change (or an
// expiry) touched the table, not new data. The table's "last updated" is not the last data commit.

import { formatDuration } from "../../words/duration.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

/** Below this gap the two clocks are the same commit. */
const MIN_GAP_MS = 1000;

export const metadataOnlyChange: DiagnosisRule = {
  id: "metadata-only-change",
  evaluate(ctx) {
    const table = ctx.table;
    if (!table || !ctx.troubled) return null;
    const newest = ctx.snapshots[ctx.snapshots.length - 1];
    if (!newest) return null;
    const gap = table.lastUpdatedMs - newest.timestampMs;
    if (gap < MIN_GAP_MS) return null;
    const lastMetadata = table.metadataLog[table.metadataLog.length - 1];
    return finding(
      "info",
      `The table was last updated at ${iso(table.lastUpdatedMs)} but its newest data commit is ${formatDuration(gap)} older: a metadata-only change, not new data`,
      [
        {
          source: "catalog",
          detail: `last-updated-ms ${iso(table.lastUpdatedMs)} vs newest snapshot ${newest.snapshotId} at ${iso(newest.timestampMs)}`,
          data: {
            lastUpdatedAt: iso(table.lastUpdatedMs),
            lastUpdatedMs: table.lastUpdatedMs,
            newestSnapshotId: newest.snapshotId,
            newestSnapshotAt: iso(newest.timestampMs),
            gapSeconds: Math.round(gap / 1000),
            ...(lastMetadata ? { lastMetadataFile: lastMetadata.metadataFile } : {}),
          },
        },
      ],
    );
  },
};
