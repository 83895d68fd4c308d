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
  return firstAfter(snapshots, (ms) => ms >= t);
}

/** First index whose timestampMs is > t. */
export function upperBound(snapshots: readonly Snapshot[], t: number): number {
  return firstAfter(snapshots, (ms) => ms > t);
}

/** Binary search for the first snapshot whose time passes `reached` (false, then true, along the array). */
function firstAfter(snapshots: readonly Snapshot[], reached: (ms: number) => boolean): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reached(snapshots[mid]!.timestampMs)) hi = mid;
    else lo = mid + 1;
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
