// How the incident ended for the writer: its first commit after the change, and the one measure
// of "recovered after" (change → first commit, core/verification/recovery.ts) every surface states.

import type { RemediationRecord } from "../remediation/record.js";
import { changeTimeOf, recoveryAfterMs } from "../verification/recovery.js";
import type { StoryRecovery } from "./model.js";

export function recoveryOf(record: RemediationRecord | undefined): StoryRecovery | undefined {
  if (!record) return undefined;
  const recorded = record.recovery;
  if (recorded) return { ...recorded, afterChangeMs: recoveryAfterMs(recorded) };
  // Records written before `recovery` kept only the time: their recovery is credited to the step.
  const walk = record.walk;
  if (walk.status !== "resolved") return undefined;
  const last = walk.history.findLast((r) => r.phase === "recovered") ?? walk.history[walk.history.length - 1];
  if (!last) return undefined;
  const atMs = record.recoveredAtMs ?? last.endedAtMs ?? walk.endedAtMs;
  if (atMs === undefined) return undefined;
  const changeAtMs = changeTimeOf(last);
  return {
    atMs,
    changeAtMs,
    afterChangeMs: recoveryAfterMs({ atMs, changeAtMs }),
    credit: "fixed",
    stepId: last.stepId,
  };
}
