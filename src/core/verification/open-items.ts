// What a report leaves for a person even after the writer recovers: a duplicate commit to remove,
// compaction to move off the writer's files, a checkpoint snapshot that expiry may take, data to
// confirm after an unknown commit. Each is an open item from the moment the diagnosis finds it
// until someone marks it done, so the card, the recovery message, the postmortem and the history
// count the same items: the card says "resolved with 1 open item" while one is open.

import type { FindingId, StepId } from "../ids.js";
import type { Finding, Report } from "../report/schema.js";
import { renderSnapshotsById } from "../statements.js";
import { parseTableName } from "../table-name.js";

export interface OpenItem {
  id: string;
  /** "todo": work to do (remove a duplicate); "risk": something that may bite (a snapshot about to expire). */
  kind: "todo" | "risk";
  /** The finding that raised it. */
  findingId?: FindingId;
  /** What remains, in plain words. */
  text: string;
  /** The statement that helps do it, ready to copy. */
  statement?: string;
  /** The playbook step whose work is this item: "Done by hand" on that step marks it done too. */
  resolvedBy?: StepId;
  doneBy?: string;
  doneAtMs?: number;
}

type ItemsOf = (finding: Finding, report: Report, catalogName: string) => OpenItem[];

const ids = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** A re-commit duplicated data: remove the second copy. */
const duplicates: ItemsOf = (finding, report, catalogName) =>
  finding.evidence.flatMap((item) => {
    const [first, second] = ids(item.data.snapshotIds);
    if (item.data.duplicate !== true || first === undefined || second === undefined) return [];
    return [
      {
        id: `remove-duplicate-${second}`,
        kind: "todo" as const,
        findingId: finding.id,
        text: `Remove the duplicate commit: snapshot ${second} holds the same data as snapshot ${first}`,
        resolvedBy: "remove-duplicate-commit" as const,
        // The entries metadata table lists the data files the duplicate added (status 1 = ADDED).
        statement: `SELECT data_file.file_path FROM ${catalogName}.${report.table}.entries WHERE snapshot_id = ${second} AND status = 1;`,
      },
    ];
  });

/**
 * The in-flight commit did not land and the writer committed since, with no duplicate seen: the
 * writer's snapshot since and the snapshots to compare (the one before the failure, that one).
 */
export function recommitOf(finding: Finding): { snapshot: string; compared: string[] } | undefined {
  const notLanded = finding.evidence.find((e) => e.data.landedAfterFailure === false);
  const resumed = finding.evidence.find((e) => e.data.resumedSnapshotId !== undefined);
  const noDuplicate = finding.evidence.some((e) => e.data.duplicate === false);
  if (!notLanded || !resumed || !noDuplicate) return undefined;
  const snapshot = String(resumed.data.resumedSnapshotId);
  const before = notLanded.data.previousSnapshotId;
  return { snapshot, compared: [before, snapshot].filter((s) => s !== undefined).map(String) };
}

/** Whether the lost data came back exactly once is for a person to confirm against the source. */
const recommitted: ItemsOf = (finding, report, catalogName) => {
  const recommit = recommitOf(finding);
  if (!recommit) return [];
  return [
    {
      id: `confirm-recommit-${recommit.snapshot}`,
      kind: "todo",
      findingId: finding.id,
      text: `Confirm the data of the commit that did not land was committed once: the writer committed again in snapshot ${recommit.snapshot}`,
      resolvedBy: "confirm-recommit",
      statement: renderSnapshotsById(
        { table: parseTableName(report.table), catalog: catalogName },
        recommit.compared,
      ),
    },
  ];
};

const FROM_FINDING: Partial<Record<FindingId, ItemsOf>> = {
  "commit-state-unknown": (finding, report, catalog) => [
    ...duplicates(finding, report, catalog),
    ...recommitted(finding, report, catalog),
  ],
  "rewrite-in-window": (finding) => [
    {
      id: "move-compaction",
      kind: "todo",
      findingId: finding.id,
      text: "Move compaction off the partitions the writer commits to (or into its own window): it rewrote the writer's files while the writer was committing",
    },
  ],
  "writer-last-snapshot-at-risk": (finding, report, catalogName) => [
    {
      id: "keep-writer-last-snapshot",
      kind: "risk",
      findingId: finding.id,
      text: "Snapshot expiry can remove the writer's last checkpoint snapshot: keep it until the writer has committed a newer one",
      statement: `SELECT snapshot_id, committed_at, summary['flink.max-committed-checkpoint-id'] FROM ${catalogName}.${report.table}.snapshots ORDER BY committed_at DESC LIMIT 5;`,
    },
  ],
};

/** The open items a report holds, in report order; none for a report without any. */
export function openItemsOf(report: Report, catalogName = "spark_catalog"): OpenItem[] {
  const items: OpenItem[] = [];
  for (const finding of report.findings)
    for (const item of FROM_FINDING[finding.id]?.(finding, report, catalogName) ?? [])
      if (!items.some((i) => i.id === item.id)) items.push(item);
  return items;
}

/** Items still open that `stepId` being done by hand resolves. */
export function itemsResolvedBy<T extends Pick<OpenItem, "doneBy" | "resolvedBy">>(
  items: readonly T[] | undefined,
  stepId: StepId,
): T[] {
  return pendingItems(items).filter((i) => i.resolvedBy === stepId);
}

/** Items still open. */
export function pendingItems<T extends Pick<OpenItem, "doneBy">>(items: readonly T[] | undefined): T[] {
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
