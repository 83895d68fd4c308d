// The remediation queue's work: apply an approved change, run a follow-up check, revert. Each
// one feeds its outcome back to the walk as a machine event.

import type { Evidence } from "../../core/evidence/model.js";
import type { WalkRecord } from "../../core/playbook/record.js";
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
import { stepWords } from "../../core/words/labels.js";
import { asCodedError } from "../../errors.js";
import { investigate } from "../investigate/investigate.js";
import type { RemediationJob } from "../ports.js";
import { applyChange, outcomeEvent, revertChange } from "./apply-change.js";
import type { RemediationDeps } from "./deps.js";
import type { RemediationEffects } from "./effects.js";
import type { Pipeline } from "./pipeline.js";
import type { StepProposals } from "./proposals.js";
import { recoveryTimeline } from "./recovery-timeline.js";
import type { RemediationSettings } from "./settings.js";
import { proposalIdFor } from "./views.js";

export class RemediationJobs {
  constructor(
    private readonly deps: RemediationDeps,
    private readonly parts: {
      settings: RemediationSettings;
      pipeline: Pipeline;
      effects: RemediationEffects;
      proposals: StepProposals;
    },
  ) {}

  async run(job: RemediationJob): Promise<void> {
    switch (job.kind) {
      case "apply":
        await this.runApply(job);
        return;
      case "check":
        await this.runCheck(job);
        return;
      case "revert":
        await this.runRevert(job);
        return;
    }
  }

  /** A check or revert job, with whatever autopilot owes after it (also when the job was a retry). */
  async runSettled(job: Extract<RemediationJob, { kind: "check" | "revert" }>): Promise<void> {
    await this.run(job);
    await this.deps.autopilot?.settle(job.incidentId);
  }

  private async runApply(job: Extract<RemediationJob, { kind: "apply" }>): Promise<void> {
    // apply-started first: a Stop that came before it wins, and nothing is applied.
    const started = await this.parts.pipeline.run(
      job.incidentId,
      { type: "apply-started", stepId: job.stepId },
      {},
    );
    const record = started.record;
    const run = record?.walk.current;
    if (!record || !run || run.stepId !== job.stepId || run.phase !== "applying") {
      // Already recorded (a retried job): make sure what follows it is queued.
      if (record) await this.parts.effects.ensurePending(record);
      return;
    }
    if (record.applySeq !== job.attempt || proposalIdFor(record, job.stepId) !== job.proposalId) return;
    // The proposal's own uuid: a table recreated since it was made must not get its change.
    const outcome = await applyChange(this.deps.ports, run.change, {
      table: parseTableName(record.table),
      ...(run.target?.uuid ? { expectedUuid: run.target.uuid } : {}),
    });
    await this.deps.afterApply?.(job);
    // A failure's thread note is one of the outcome's messages, saved with it.
    await this.parts.pipeline.run(job.incidentId, outcomeEvent(job.stepId, outcome), {});
    if (outcome.status === "conflict-rechecked") {
      // The table moved under the proposal: the same step again, built afresh from today's values.
      await this.parts.proposals.propose(job.incidentId, job.stepId);
    }
  }

  private async runCheck(job: Extract<RemediationJob, { kind: "check" }>): Promise<void> {
    const stored = await this.deps.walks.get(job.incidentId);
    const record = stored?.value;
    if (record && resolvedBy(record, job)) {
      // This check resolved the incident and its worker died before closing it or writing its
      // history: finish that (idempotent). The postmortem was queued with the resolution.
      await this.parts.effects.finishResolution(record);
      return;
    }
    const run = record?.walk.current;
    if (!record || !run || run.stepId !== job.stepId || run.checksDone + 1 !== job.checkIndex) return;
    if (proposalIdFor(record, job.stepId) !== job.proposalId) return;
    const step = this.parts.settings.step(record.walk.playbookId, job.stepId);
    const settings = tableSettings(this.deps.bot, record.table);
    let recovery: RecoveryResult;
    let writer = record.writer;
    let evidence: Evidence | undefined;
    try {
      evidence = await investigate(
        this.deps.ports,
        {
          table: record.table,
          flinkJob: settings.flinkJob,
          connector: settings.connector,
          timeoutMs: this.deps.sourceTimeoutMs,
        },
        this.deps.now,
      );
      // The writer the diagnosis named as failing; only without one, whoever writes the table now.
      const identity = writer ? watchedWriter(writer) : identifyWriter(evidence);
      if (!writer && identity.kind === "flink") writer = { kind: "flink-job", id: identity.jobId };
      if (!writer && identity.kind === "connect") writer = { kind: "connector", id: identity.connector };
      recovery = evaluateRecovery(
        {
          changeAtMs: changeTimeOf(run),
          writer: identity,
          ...(step ? { signals: step.verify.signals } : {}),
        },
        evidence,
        this.deps.now(),
      );
    } catch (error) {
      recovery = unreadableCheck("table", asCodedError(error).message);
    }
    // The picture first: the postmortem queued with the resolution embeds it, so it must be in
    // the thread's queue ahead of it. A check retried after a crash draws it again under the same name.
    if (recovery.recovered && evidence) {
      await recoveryTimeline(this.deps, record, {
        evidence,
        proposalId: job.proposalId,
        changeAtMs: changeTimeOf(run),
        // The step's words ("raise commit retries") are short enough for the legend.
        changeLabel: stepWords(job.stepId),
        recoveredAtMs: recovery.firstNewSnapshot?.timestampMs ?? this.deps.now(),
        ...(recovery.credit ? { credit: recovery.credit } : {}),
        ...(writer ? { writer } : {}),
      });
    }
    await this.parts.pipeline.run(
      job.incidentId,
      {
        type: "check",
        stepId: job.stepId,
        checkIndex: job.checkIndex,
        result: {
          recovered: recovery.recovered,
          outcome: recovery.outcome,
          detail: recovery.detail,
          ...(recovery.unseen ? { unseen: recovery.unseen } : {}),
        },
      },
      { recovery, ...(writer ? { writer } : {}) },
    );
  }

  private async runRevert(job: Extract<RemediationJob, { kind: "revert" }>): Promise<void> {
    const stored = await this.deps.walks.get(job.incidentId);
    const record = stored?.value;
    const run = record?.walk.history.findLast((r) => r.stepId === job.stepId && r.phase === "reverting");
    if (!record || !run?.previous) return;
    const outcome = await revertChange(this.deps.ports, run.change, run.previous, {
      table: parseTableName(record.table),
      ...(run.target?.uuid ? { expectedUuid: run.target.uuid } : {}),
    });
    const ok = ["applied", "already-applied", "applied-confirmed"].includes(outcome.status);
    await this.parts.pipeline.run(
      job.incidentId,
      { type: "reverted", stepId: job.stepId, ok, message: outcome.detail },
      {},
    );
  }
}

/** Whether this check is the one that recovered the step and resolved the walk. */
function resolvedBy(record: WalkRecord, job: Extract<RemediationJob, { kind: "check" }>): boolean {
  if (record.walk.status !== "resolved") return false;
  const run = record.walk.history.findLast((r) => r.phase === "recovered");
  return (
    run?.stepId === job.stepId &&
    run.checksDone === job.checkIndex &&
    proposalIdFor(record, job.stepId) === job.proposalId
  );
}

function watchedWriter(writer: NonNullable<WalkRecord["writer"]>): WriterIdentity {
  if (writer.kind === "connector") return { kind: "connect", connector: writer.id };
  return {
    kind: "flink",
    jobId: writer.id,
    ...(writer.name ? { name: writer.name } : {}),
    ...(writer.operatorId ? { operatorId: writer.operatorId } : {}),
    ...(writer.failedAtMs !== undefined ? { failedAtMs: writer.failedAtMs } : {}),
  };
}
