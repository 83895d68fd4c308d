// What a report leaves for a person even after the writer recovers: a duplicate commit to remove
// after an unknown commit state, for example. The incident is not resolved silently while one is
// open: the card says "resolved with 1 open item" until someone marks it done.

import type { Report } from "../report/schema.js";

export interface OpenItem {
  id: string;
  /** What remains, in plain words. */
  text: string;
  /** The statement that helps do it, ready to copy. */
  statement?: string;
  doneBy?: string;
  doneAtMs?: number;
}

/** The open items a report holds, in report order; none for a report without any. */
export function openItemsOf(report: Report, catalogName = "spark_catalog"): OpenItem[] {
  const items: OpenItem[] = [];
  for (const finding of report.findings) {
    for (const item of finding.evidence) {
      const ids = item.data.snapshotIds;
      if (item.data.duplicate !== true || !Array.isArray(ids) || ids.length < 2) continue;
      const [first, second] = ids.map(String);
      const id = `remove-duplicate-${second}`;
      if (items.some((i) => i.id === id)) continue;
      items.push({
        id,
        text: `Remove the duplicate commit: snapshot ${second} holds the same data as snapshot ${first}`,
        // The entries metadata table lists the data files the duplicate added (status 1 = ADDED).
        statement: `SELECT data_file.file_path FROM ${catalogName}.${report.table}.entries WHERE snapshot_id = ${second} AND status = 1;`,
      });
    }
  }
  return items;
}

/** Items still open. */
export function pendingItems(items: readonly OpenItem[] | undefined): OpenItem[] {
  return (items ?? []).filter((i) => i.doneBy === undefined);
}

/** A new report's items, keeping who already marked one of them done. */
export function mergeOpenItems(
  previous: readonly OpenItem[] | undefined,
  next: readonly OpenItem[],
): OpenItem[] {
  const done = new Map((previous ?? []).filter((i) => i.doneBy !== undefined).map((i) => [i.id, i]));
  const merged = next.map((i) => done.get(i.id) ?? i);
  for (const old of previous ?? []) if (!merged.some((i) => i.id === old.id)) merged.push(old);
  return merged;
}
