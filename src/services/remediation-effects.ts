// Carries out what the playbook machine asked for: thread messages (posted once, then edited in
// place), ephemeral refusals, jobs (apply, follow-up checks, revert), audit rows and the status card.
// Slack failures are logged and do not undo a recorded decision; queue failures are thrown so the
// caller's job is retried.

import type { ApprovalPolicy } from "../core/approval/policy.js";
import type { StepId } from "../core/ids.js";
import type { WalkRecord } from "../core/playbook/record.js";
import type { Step } from "../core/playbook/schema.js";
import type { Effect, ProposalNote, StepPhase, StepRun } from "../core/playbook/walk.js";
import type { RecoveryResult } from "../core/verification/check.js";
import { asCodedError } from "../errors.js";
import type { RemediationJob } from "./ports.js";
import type { RemediationDeps } from "./remediation-deps.js";
import {
  cardSummary,
  decisionFor,
  proposalIdFor,
  proposalView,
  verificationView,
} from "./remediation-views.js";
import type { VerificationOutcome } from "./view-models.js";

export interface ExecuteExtra {
  /** The person whose click caused the effects, for "Skipped by …" lines. */
  actor?: string;
  /** What the follow-up check read, for the verification message. */
  recovery?: RecoveryResult;
}

export interface EffectHooks {
  policy(table: string): Promise<ApprovalPolicy>;
  step(playbookId: string, stepId: string): Step | undefined;
  proposeNext(incidentId: string, stepId: StepId, actor?: string): Promise<void>;
}

const QUEUE_EFFECTS = new Set<Effect["type"]>(["apply-change", "schedule-check", "revert-change"]);

export class RemediationEffects {
  constructor(
    private readonly deps: RemediationDeps,
    private readonly hooks: EffectHooks,
  ) {}

  async execute(record: WalkRecord, effects: readonly Effect[], extra: ExecuteExtra = {}): Promise<void> {
    const later: Array<() => Promise<void>> = [];
    for (const effect of effects) {
      try {
        await this.perform(record, effect, effects, extra, later);
      } catch (error) {
        if (QUEUE_EFFECTS.has(effect.type)) throw error;
        this.deps.log.warn(
          { effect: effect.type, err: asCodedError(error).message },
          "remediation effect failed",
        );
      }
    }
    await this.syncCard(record).catch((error: unknown) =>
      this.deps.log.warn({ err: asCodedError(error).message }, "status card update failed"),
    );
    for (const next of later) await next();
  }

  /** Posts the live proposal of a step if it is not in the thread yet (idempotent). */
  async ensureProposalPosted(record: WalkRecord, stepId: StepId): Promise<void> {
    await this.postProposal(record, stepId);
    await this.syncCard(record);
  }

  /**
   * Re-adds the job the walk is waiting for (deduplicated by job id). A worker that died after
   * recording a step but before queueing its follow-up leaves the walk waiting; this picks it up.
   */
  async ensurePending(record: WalkRecord): Promise<void> {
    const run = record.walk.current;
    const proposalId = run ? proposalIdFor(record, run.stepId) : undefined;
    if (run && proposalId && run.phase === "approved") {
      await this.deps.jobs.enqueue({
        kind: "apply",
        incidentId: record.incidentId,
        stepId: run.stepId,
        proposalId,
        attempt: record.applySeq,
      });
    }
    if (run && proposalId && ["applied", "done-by-hand", "verifying"].includes(run.phase)) {
      const next = run.checksDone + 1;
      const dueAt = (run.appliedAtMs ?? run.proposedAtMs) + next * run.intervalMs;
      await this.deps.jobs.enqueue(
        { kind: "check", incidentId: record.incidentId, stepId: run.stepId, proposalId, checkIndex: next },
        Math.max(0, dueAt - this.deps.now()),
      );
    }
    const reverting = record.walk.history.findLast((r) => r.phase === "reverting");
    if (reverting) {
      await this.deps.jobs.enqueue({
        kind: "revert",
        incidentId: record.incidentId,
        stepId: reverting.stepId,
        attempt: record.revertSeq,
      });
    }
  }

  async noteApplyFailure(
    record: WalkRecord,
    job: Extract<RemediationJob, { kind: "apply" }>,
    detail: string,
  ): Promise<void> {
    const stepTitle = this.hooks.step(record.walk.playbookId, job.stepId)?.title ?? job.stepId;
    await this.deps.notifier
      .postNote(record, `apply-${job.proposalId}-${job.attempt}`, { kind: "apply-failed", stepTitle, detail })
      .catch((error: unknown) =>
        this.deps.log.warn({ err: asCodedError(error).message }, "apply note failed"),
      );
  }

  /** A step that could not be proposed: said in the thread and audited, never proposed blind. */
  async noteProposalFailed(
    record: Pick<WalkRecord, "incidentId" | "table" | "channel" | "walk" | "proposedForDiagnosis">,
    stepId: StepId,
    reason: string,
    actor?: string,
  ): Promise<void> {
    const stepTitle = this.hooks.step(record.walk.playbookId, stepId)?.title ?? stepId;
    const at = this.deps.now();
    await this.deps.notifier
      .postNote(record, `proposal-failed-${stepId}-${at}`, {
        kind: "proposal-failed",
        stepTitle,
        reason,
        table: record.table,
      })
      .catch((error: unknown) =>
        this.deps.log.warn({ err: asCodedError(error).message }, "proposal failure note failed"),
      );
    await this.deps.audit.append(record.table, {
      atMs: at,
      actor: actor ?? "bot",
      action: "propose",
      stepId,
      outcome: "failed",
      detail: `could not propose ${stepId}: ${reason}`,
      incidentId: record.incidentId,
    });
  }

  // ---------------------------------------------------------------------------------------------

  private async perform(
    record: WalkRecord,
    effect: Effect,
    all: readonly Effect[],
    extra: ExecuteExtra,
    later: Array<() => Promise<void>>,
  ): Promise<void> {
    const { deps } = this;
    switch (effect.type) {
      case "post-proposal":
        await this.postProposal(record, effect.stepId);
        return;
      case "update-proposal":
        await this.updateProposal(record, effect.stepId, effect.phase, effect.note, extra.actor);
        return;
      case "post-ephemeral":
        await deps.notifier.postEphemeral(record, effect.user, effect.notice);
        return;
      case "apply-change": {
        const proposalId = proposalIdFor(record, effect.stepId) ?? "p0";
        await deps.jobs.enqueue({
          kind: "apply",
          incidentId: record.incidentId,
          stepId: effect.stepId,
          proposalId,
          attempt: record.applySeq,
        });
        return;
      }
      case "schedule-check": {
        const proposalId = proposalIdFor(record, effect.stepId) ?? "p0";
        await deps.jobs.enqueue(
          {
            kind: "check",
            incidentId: record.incidentId,
            stepId: effect.stepId,
            proposalId,
            checkIndex: effect.checkIndex,
          },
          effect.delayMs,
        );
        return;
      }
      case "revert-change":
        await deps.jobs.enqueue({
          kind: "revert",
          incidentId: record.incidentId,
          stepId: effect.stepId,
          attempt: record.revertSeq,
        });
        return;
      case "update-verification":
        await this.updateVerification(record, effect, all, extra.recovery);
        return;
      case "resolve-incident": {
        const incident = await deps.store.require(record.incidentId);
        if (incident.state !== "resolved") await deps.store.close(incident, "resolved", deps.now());
        return;
      }
      case "offer-next-step":
        // After an ineffective step the verification message carries the button; a skip moves on at once.
        if (effect.reason === "skipped")
          later.push(() => this.hooks.proposeNext(record.incidentId, effect.nextStepId, extra.actor));
        return;
      case "walk-ended": {
        const incident = await deps.store.require(record.incidentId);
        if (effect.outcome === "stopped" && incident.state !== "stopped")
          await deps.store.close(incident, "stopped", deps.now());
        await deps.notifier.postNote(
          record,
          `walk-ended-${record.proposals.length}`,
          effect.outcome === "stopped"
            ? { kind: "walk-stopped", table: record.table, by: effect.by }
            : {
                kind: "walk-stalled",
                table: record.table,
                afterStepId: effect.afterStepId,
                ...(effect.terminal ? { terminalTitle: effect.terminal.title } : {}),
              },
        );
        return;
      }
      case "audit":
        // Stale jobs and duplicate results the bot itself ignored are noise in the history.
        if (effect.entry.outcome === "ignored" && effect.entry.actor === "bot") return;
        await deps.audit.record(record.table, effect.entry, record.incidentId);
        return;
    }
  }

  private runFor(record: WalkRecord, stepId: StepId): StepRun | undefined {
    if (record.walk.current?.stepId === stepId) return record.walk.current;
    return record.walk.history.findLast((r) => r.stepId === stepId);
  }

  private async proposalView(record: WalkRecord, stepId: StepId) {
    const run = this.runFor(record, stepId);
    const step = this.hooks.step(record.walk.playbookId, stepId);
    const proposalId = proposalIdFor(record, stepId);
    if (!run || !step || !proposalId) return undefined;
    const policy = await this.hooks.policy(record.table);
    return { run, proposalId, view: proposalView(record, run, step, proposalId, policy.approvers) };
  }

  private async postProposal(record: WalkRecord, stepId: StepId): Promise<void> {
    const built = await this.proposalView(record, stepId);
    if (!built) return;
    await this.deps.notifier.postProposal(record, `proposal-${built.proposalId}`, built.view);
  }

  private async updateProposal(
    record: WalkRecord,
    stepId: StepId,
    phase: StepPhase,
    note: ProposalNote,
    actor: string | undefined,
  ): Promise<void> {
    const built = await this.proposalView(record, stepId);
    if (!built) return;
    const decision = decisionFor(built.run, phase, actor, this.deps.now());
    // A superseded or decided proposal must not offer buttons any more.
    const withButtons = !decision && phase !== "superseded";
    await this.deps.notifier.updateProposal(
      record,
      `proposal-${built.proposalId}`,
      decision ? { ...built.view, decision } : built.view,
      note,
      withButtons,
    );
  }

  private async updateVerification(
    record: WalkRecord,
    effect: Extract<Effect, { type: "update-verification" }>,
    all: readonly Effect[],
    recovery: RecoveryResult | undefined,
  ): Promise<void> {
    const proposalId = proposalIdFor(record, effect.stepId);
    const run = this.runFor(record, effect.stepId);
    const step = this.hooks.step(record.walk.playbookId, effect.stepId);
    if (!proposalId || !run || !step) return;
    let outcome: VerificationOutcome | undefined;
    if (effect.recovered) {
      const snapshot = recovery?.firstNewSnapshot;
      const committedAtMs = snapshot?.timestampMs ?? this.deps.now();
      outcome = {
        kind: "recovered",
        snapshotId: snapshot?.id ?? "unknown",
        committedAtMs,
        recoveredAfterMs: Math.max(0, committedAtMs - (run.appliedAtMs ?? run.proposedAtMs)),
      };
    } else if (effect.checkIndex >= effect.checksTotal) {
      const offer = all.find((e) => e.type === "offer-next-step");
      const revertable =
        run.previous !== undefined &&
        run.appliedBy === "bot" &&
        (run.change.kind === "table-properties" || run.change.kind === "connector-config");
      outcome = {
        kind: "ineffective",
        revertable,
        ...(offer?.type === "offer-next-step"
          ? {
              nextStep: {
                stepId: offer.nextStepId,
                title: this.hooks.step(record.walk.playbookId, offer.nextStepId)?.title ?? offer.nextStepId,
              },
            }
          : {}),
      };
    }
    const view = verificationView(
      record,
      run,
      step,
      proposalId,
      { index: effect.checkIndex, total: effect.checksTotal, recovered: effect.recovered },
      recovery,
      outcome,
    );
    await this.deps.notifier.upsertVerification(record, `verify-${proposalId}`, view);
    await this.deps.audit.append(record.table, {
      atMs: this.deps.now(),
      actor: "bot",
      action: effect.recovered ? "verified: recovered" : "verified: not yet",
      stepId: effect.stepId,
      outcome: "ok",
      detail: `check ${effect.checkIndex} of ${effect.checksTotal}: ${effect.detail}`,
      incidentId: record.incidentId,
    });
  }

  private async syncCard(record: WalkRecord): Promise<void> {
    const summary = cardSummary(record, (id) => this.hooks.step(record.walk.playbookId, id)?.title ?? id);
    if (!summary) return;
    const { store, slackQueue, now } = this.deps;
    const incident = await store.get(record.incidentId);
    if (!incident) return;
    if (incident.state === summary.state && JSON.stringify(incident.walk) === JSON.stringify(summary)) return;
    const version = await store.update(
      record.incidentId,
      { state: summary.state, walk: summary },
      now(),
      true,
    );
    await slackQueue.enqueueSlack({ kind: "card", incidentId: record.incidentId, version });
  }
}
