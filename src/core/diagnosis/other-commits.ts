// Commits by someone other than the writer that match a kind (compaction, row-level changes,
// appends) in a range: how many, the oldest and newest few to list as evidence, and who made them.

import {
  type CommitterIdentity,
  committerKey,
  committerOf,
  describeCommitter,
} from "../attribution/attribute.js";
import type { Snapshot } from "../evidence/model.js";
import type { DiagnosisContext } from "./context.js";
import { MAX_LISTED } from "./rule.js";
import type { IndexRange } from "./snapshots.js";

export interface OtherCommitter {
  /** As first seen. */
  identity: CommitterIdentity;
  /** As last seen (a Trino query id changes with every commit). */
  name: string;
  count: number;
  first: number;
  last: number;
}

export function otherCommits(ctx: DiagnosisContext, range: IndexRange, matches: (s: Snapshot) => boolean) {
  return commitsIn(ctx.snapshots, range, (s) => !ctx.isWriter(s) && matches(s));
}

/** The snapshots in `range` that match, whoever committed them. */
export function commitsIn(
  snapshots: readonly Snapshot[],
  range: IndexRange,
  matches: (s: Snapshot) => boolean,
) {
  const oldest: Snapshot[] = [];
  const newest: Snapshot[] = [];
  let count = 0;
  const who = new Map<string, OtherCommitter>();
  for (let i = range.from; i < range.to; i++) {
    const s = snapshots[i]!;
    if (!matches(s)) continue;
    count++;
    if (oldest.length < MAX_LISTED) oldest.push(s);
    newest.push(s);
    if (newest.length > MAX_LISTED) newest.shift();
    const identity = committerOf(s);
    const key = committerKey(identity);
    const seen = who.get(key);
    if (seen) {
      seen.count++;
      seen.last = s.timestampMs;
      seen.name = describeCommitter(identity);
    } else
      who.set(key, {
        identity,
        name: describeCommitter(identity),
        count: 1,
        first: s.timestampMs,
        last: s.timestampMs,
      });
  }
  return {
    count,
    /** The oldest matching snapshots, at most MAX_LISTED. */
    oldest,
    /** The newest matching snapshots, newest first, at most MAX_LISTED. */
    newest: newest.reverse(),
    /** One entry per distinct committer, in the order they first appear. */
    committers: [...who.values()],
  };
}

export type OtherCommits = ReturnType<typeof commitsIn>;
