// Commits by someone other than the writer that match a kind (compaction, row-level changes) in a
// range: how many, the oldest few to list as evidence, and who made them.

import { committerKey, committerOf, describeCommitter } from "../attribution/attribute.js";
import type { Snapshot } from "../evidence/model.js";
import { type DiagnosisContext, forEachOther } from "./context.js";
import type { IndexRange } from "./snapshots.js";

/** How many snapshots a finding lists; the count still covers all of them. */
const SAMPLE_SIZE = 5;

export interface OtherCommits {
  count: number;
  /** The oldest matching snapshots, at most SAMPLE_SIZE. */
  sample: Snapshot[];
  /** One description per distinct committer, in the order they first appear. */
  committers: string[];
}

export function otherCommits(
  ctx: DiagnosisContext,
  range: IndexRange,
  matches: (s: Snapshot) => boolean,
): OtherCommits {
  const sample: Snapshot[] = [];
  let count = 0;
  const who = new Map<string, string>();
  forEachOther(ctx, range, (s) => {
    if (!matches(s)) return;
    count++;
    if (sample.length < SAMPLE_SIZE) sample.push(s);
    const identity = committerOf(s);
    who.set(committerKey(identity), describeCommitter(identity));
  });
  return { count, sample, committers: [...who.values()] };
}

/** "once" or "3 times". */
export function howOften(count: number): string {
  return count === 1 ? "once" : `${count} times`;
}
