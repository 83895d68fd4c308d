// Snapshot helpers that stay fast on 100,000-entry histories: binary search on the time-sorted
// array, index ranges instead of copies, and scans that start at the newest end.

import { committerOf, describeCommitter } from "../attribution/attribute.js";
import type { Snapshot } from "../evidence/model.js";

/** A half-open index range [from, to) into a snapshot array sorted by time. */
export interface IndexRange {
  from: number;
  to: number;
}

/** First index whose timestampMs is >= t (snapshots sorted ascending). */
export function lowerBound(snapshots: readonly Snapshot[], t: number): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (snapshots[mid]!.timestampMs < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose timestampMs is > t. */
export function upperBound(snapshots: readonly Snapshot[], t: number): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (snapshots[mid]!.timestampMs <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Indexes of snapshots with fromMs < timestampMs <= toMs. */
export function rangeAfter(snapshots: readonly Snapshot[], fromMs: number, toMs: number): IndexRange {
  return { from: upperBound(snapshots, fromMs), to: upperBound(snapshots, toMs) };
}

/** Index of the newest snapshot matching `predicate`, scanning from the newest end; -1 when none. */
export function findNewestIndex(
  snapshots: readonly Snapshot[],
  predicate: (snapshot: Snapshot) => boolean,
  before = snapshots.length,
): number {
  for (let i = before - 1; i >= 0; i--) {
    if (predicate(snapshots[i]!)) return i;
  }
  return -1;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A compact evidence record for one snapshot. */
export function snapshotData(snapshot: Snapshot): Record<string, unknown> {
  return {
    snapshotId: snapshot.snapshotId,
    committedAt: iso(snapshot.timestampMs),
    operation: snapshot.operation,
    committer: describeCommitter(committerOf(snapshot)),
  };
}

/**
 * Durations in the one style every message uses: "45 s", "4 min 5 s", "55 min", "2 h 5 min",
 * "3 d 4 h" (seconds only where they still matter, under ten minutes).
 */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes >= 10 || (minutes > 0 && seconds === 0)) return `${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds} s`;
  return `${seconds} s`;
}
