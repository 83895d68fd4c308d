// The remediation queue's work: apply an approved change, run a follow-up check, revert. Each
// one feeds its outcome back to the walk as a machine event.

import type { Evidence } from "../../core/evidence/model.js";
import { proposalIdFor, type RemediationRecord } from "../../core/remediation/record.js";
import { tableSettings } from "../../core/settings.js";
import { parseTableName } from "../../core/table-name.js";
import {
  evaluateRecovery,
  identifyWriter,
  type RecoveryResult,
  unreadableCheck,
  type WriterIdentity,
} from "../../core/verification/check.js";
import { changeTimeOf } from "../../core/verification/recovery.js";
import { asCodedError } from "../../errors.js";
import { investigate } from "../investigate/investigate.js";
import type { RemediationJob } from "../ports.js";
import { applyChange, inverseChange, outcomeEvent } from "./apply-change.js";
import { type RemediationDeps, stepOf } from "./deps.js";
import { ensurePending, finishResolution } from "./effects.js";
import { propose, run } from "./pipeline.js";
import { recoveryTimeline } from "./recovery-timeline.js";

type QueuedJob<K extends RemediationJob["kind"]> = Extract<RemediationJob, { kind: K }>;

/** An apply, check or revert job; after a check or revert, whatever autopilot owes (also on a retry). */
export async function runChangeJob(
  deps: RemediationDeps,
  job: QueuedJob<"apply" | "check" | "revert">,
): Promise<void> {
  if (job.kind === "apply") return runApply(deps, job);
  await (job.kind === "check" ? runCheck(deps, job) : runRevert(deps, job));
  await deps.autopilot?.settle(job.incidentId);
}

async function runApply(deps: RemediationDeps, job: QueuedJob<"apply">): Promise<void> {
  // apply-started first: a Stop that came before it wins, and nothing is applied.
  const started = await run(deps, job.incidentId, { type: "apply-started", stepId: job.stepId }, {});
  const record = started.record;
  const current = record?.walk.current;
  if (!record || !current || current.stepId !== job.stepId || current.phase !== "applying") {
    // Already recorded (a retried job): make sure what follows it is queued.
    if (record) await ensurePending(deps, record);
    return;
  }
  if (record.applySeq !== job.attempt || proposalIdFor(record, job.stepId) !== job.proposalId) return;
  // The proposal's own uuid: a table recreated since it was made must not get its change.
  const outcome = await applyChange(deps.ports, current.change, {
    table: parseTableName(record.table),
    ...(current.target?.uuid ? { expectedUuid: current.target.uuid } : {}),
  });
  await deps.afterApply?.(job);
  // A failure's thread note is one of the outcome's messages, saved with it.
  await run(deps, job.incidentId, outcomeEvent(job.stepId, outcome), {});
  if (outcome.status === "conflict-rechecked") {
    // The table moved under the proposal: the same step again, built afresh from today's values.
    await propose(deps, job.incidentId, job.stepId);
  }
}

async function runCheck(deps: RemediationDeps, job: QueuedJob<"check">): Promise<void> {
  const record = (await deps.walks.get(job.incidentId))?.value;
  if (record && resolvedBy(record, job)) {
    // This check resolved the incident and its worker died before closing it or writing its
    // history: finish that (idempotent). The postmortem was queued with the resolution.
    await finishResolution(deps, record);
    return;
  }
  const current = record?.walk.current;
  if (!record || !current || current.stepId !== job.stepId || current.checksDone + 1 !== job.checkIndex)
    return;
  if (proposalIdFor(record, job.stepId) !== job.proposalId) return;
  const step = stepOf(deps, record, job.stepId);
  const settings = tableSettings(deps.bot, record.table);
  let recovery: RecoveryResult;
  let writer = record.writer;
  let evidence: Evidence | undefined;
  try {
    evidence = await investigate(
      deps.ports,
      {
        table: record.table,
        flinkJob: settings.flinkJob,
        connector: settings.connector,
        timeoutMs: deps.sourceTimeoutMs,
      },
      deps.now,
    );
    // The writer the diagnosis named as failing; only without one, whoever writes the table now.
    const identity = writer ? watchedWriter(writer) : identifyWriter(evidence);
    if (!writer && identity.kind === "flink") writer = { kind: "flink-job", id: identity.jobId };
    if (!writer && identity.kind === "connect") writer = { kind: "connector", id: identity.connector };
    recovery = evaluateRecovery(
      {
        changeAtMs: changeTimeOf(current),
        writer: identity,
        ...(step ? { signals: step.verify.signals } : {}),
      },
      evidence,
      deps.now(),
    );
  } catch (error) {
    recovery = unreadableCheck("table", asCodedError(error).message);
  }
  // The picture first: the postmortem queued with the resolution embeds it, so it must be in
  // the thread's queue ahead of it. A check retried after a crash draws it again under the same name.
  if (recovery.recovered && evidence) {
    await recoveryTimeline(deps, record, {
      evidence,
      proposalId: job.proposalId,
      run: current,
      recovery,
      writer,
    });
  }
  const { recovered, outcome, detail, unseen } = recovery;
  await run(
    deps,
    job.incidentId,
    {
      type: "check",
      stepId: job.stepId,
      checkIndex: job.checkIndex,
      result: { recovered, outcome, detail, ...(unseen ? { unseen } : {}) },
    },
    { recovery, ...(writer ? { writer } : {}) },
  );
}

async function runRevert(deps: RemediationDeps, job: QueuedJob<"revert">): Promise<void> {
  const record = (await deps.walks.get(job.incidentId))?.value;
  const reverting = record?.walk.history.findLast((r) => r.stepId === job.stepId && r.phase === "reverting");
  if (!record || !reverting?.previous) return;
  const outcome = await applyChange(deps.ports, inverseChange(reverting.change, reverting.previous), {
    table: parseTableName(record.table),
    ...(reverting.target?.uuid ? { expectedUuid: reverting.target.uuid } : {}),
  });
  const ok = ["applied", "already-applied", "applied-confirmed"].includes(outcome.status);
  await run(deps, job.incidentId, { type: "reverted", stepId: job.stepId, ok, message: outcome.detail }, {});
}

/** Whether this check is the one that recovered the step and resolved the walk. */
function resolvedBy(record: RemediationRecord, job: QueuedJob<"check">): boolean {
  if (record.walk.status !== "resolved") return false;
  const run = record.walk.history.findLast((r) => r.phase === "recovered");
  return (
    run?.stepId === job.stepId &&
    run.checksDone === job.checkIndex &&
    proposalIdFor(record, job.stepId) === job.proposalId
  );
}

function watchedWriter(writer: NonNullable<RemediationRecord["writer"]>): WriterIdentity {
  if (writer.kind === "connector") return { kind: "connect", connector: writer.id };
  return {
    kind: "flink",
    jobId: writer.id,
    ...(writer.name ? { name: writer.name } : {}),
    ...(writer.operatorId ? { operatorId: writer.operatorId } : {}),
    ...(writer.failedAtMs !== undefined ? { failedAtMs: writer.failedAtMs } : {}),
  };
}
