// After recovery the thread gets the commit timeline once more: the same window as the diagnosis,
// now with the applied change as a vertical line and the writer's first new commit marked.
// Best effort: the verification message is already in the thread, a missing picture is only logged.

import { buildTimeline, describeTimeline, isTimelineChart } from "../../core/chart/timeline.js";
import type { Evidence } from "../../core/evidence/model.js";
import type { RemediationRecord } from "../../core/remediation/record.js";
import type { StepRun } from "../../core/remediation/walk.js";
import type { RecoveryResult } from "../../core/verification/check.js";
import { changeTimeOf } from "../../core/verification/recovery.js";
import { stepWords } from "../../core/words/labels.js";
import { asCodedError } from "../../errors.js";
import type { RemediationDeps } from "./deps.js";

const MAX_CHANGE_LABEL = 36;

/**
 * The picture of the check that saw `run`'s change recover, from that check's evidence; `writer`
 * is the one the follow-ups judged, when the record does not name it yet.
 */
export async function recoveryTimeline(
  deps: Pick<RemediationDeps, "notifier" | "store" | "now" | "log">,
  record: RemediationRecord,
  picture: {
    evidence: Evidence;
    proposalId: string;
    run: StepRun;
    recovery: RecoveryResult;
    writer: RemediationRecord["writer"];
  },
): Promise<void> {
  try {
    const incident = await deps.store.get(record.incidentId);
    if (!incident?.rootTs) return;
    const first = await deps.store.getChart(record.incidentId, Math.max(1, incident.diagnoses));
    // The step's words ("raise commit retries") are short enough for the legend.
    const words = stepWords(picture.run.stepId);
    const label = words.length > MAX_CHANGE_LABEL ? `${words.slice(0, MAX_CHANGE_LABEL - 1)}…` : words;
    // The failing writer keeps its lane: the one the diagnosis named, never a twin that committed.
    const writer = picture.writer ?? record.writer;
    const chart = buildTimeline(picture.evidence, deps.now(), {
      tableName: record.table,
      ...(writer
        ? { writer: { kind: writer.kind === "connector" ? "connect" : "flink", id: writer.id } }
        : {}),
      change: { atMs: changeTimeOf(picture.run), label: `change: ${label}` },
      recovery: {
        atMs: picture.recovery.firstNewSnapshot?.timestampMs ?? deps.now(),
        // "already-flowing": the writer committed before the change; the mark must not say it recovered.
        label:
          picture.recovery.credit === "already-flowing"
            ? "next commit (commits were flowing)"
            : "writer recovered",
      },
      ...(isTimelineChart(first) && first.window ? { window: first.window } : {}),
    });
    // Kept for the postmortem, which shows it again beside the diagnosis's.
    await deps.store.saveChart(record.incidentId, "recovery", chart);
    // Shared once under its name by the outbox's poster, like every other thread message.
    await deps.notifier.say(record, {
      kind: "chart",
      name: `recovery-chart-${picture.proposalId}`,
      chart,
      file: {
        name: `${record.table}-commits-after-change.png`,
        title: `Commits to ${record.table} after the change`,
        altText: describeTimeline(chart),
      },
    });
  } catch (error) {
    deps.log.warn(
      { incidentId: record.incidentId, err: asCodedError(error).message },
      "recovery timeline not posted",
    );
  }
}
