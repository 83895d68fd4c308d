// How the incident ended for the writer: its first commit after the change, and the one measure
// of "recovered after" (change → first commit) every surface states.

import type { StepId } from "../ids.js";
import type { WalkRecord } from "../playbook/record.js";
import type { StoryRecovery } from "./model.js";

/** The recovery as the follow-up check recorded it; absent in records older than it. */
interface RecordedRecovery {
  atMs: number;
  changeAtMs?: number;
  credit: "fixed" | "already-flowing";
  stepId?: StepId;
}

export function recoveryOf(record: WalkRecord | undefined): StoryRecovery | undefined {
  if (!record) return undefined;
  const recorded = (record as WalkRecord & { recovery?: RecordedRecovery }).recovery;
  if (recorded) return withAfter(recorded);
  const walk = record.walk;
  if (walk.status !== "resolved") return undefined;
  const last = walk.history.findLast((r) => r.phase === "recovered") ?? walk.history[walk.history.length - 1];
  if (!last) return undefined;
  const atMs = record.recoveredAtMs ?? last.endedAtMs ?? walk.endedAtMs;
  if (atMs === undefined) return undefined;
  return withAfter({
    atMs,
    changeAtMs: last.appliedAtMs ?? last.proposedAtMs,
    credit: "fixed",
    stepId: last.stepId,
  });
}

function withAfter(r: RecordedRecovery): StoryRecovery {
  return {
    atMs: r.atMs,
    ...(r.changeAtMs !== undefined
      ? { changeAtMs: r.changeAtMs, afterChangeMs: Math.max(0, r.atMs - r.changeAtMs) }
      : {}),
    credit: r.credit,
    ...(r.stepId ? { stepId: r.stepId } : {}),
  };
}
