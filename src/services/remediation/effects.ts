// Carries out what the playbook machine asked for: thread messages (posted once, then edited in
// place), ephemeral refusals, jobs (apply, follow-up checks, revert), audit rows and the status card.
// Slack failures are logged and do not undo a recorded decision; queue failures are thrown so the
// caller's job is retried.

import type { StepId } from "../../core/ids.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { Effect, StepRun } from "../../core/playbook/walk.js";
import { walkStory } from "../../core/story/steps.js";
import type { CheckOutcome, RecoveryResult } from "../../core/verification/check.js";
import { changeTimeOf, recoveryAfterMs } from "../../core/verification/recovery.js";
import { asCodedError } from "../../errors.js";
import { recordIncidentHistory } from "../history/record-incident.js";
import type { WalkMessage } from "../ports.js";
import type { VerificationOutcome, VerificationView } from "../view-models.js";
import type { RemediationDeps } from "./deps.js";
import type { RemediationSettings } from "./settings.js";
import { decisionFor, proposalIdFor, proposalView, verificationView } from "./views.js";

export interface ExecuteExtra {
  /** The walk store already saved the effects' messages with the record (the outbox sends them). */
  messagesRecorded?: boolean;
  /** The person whose click caused the effects, for "Skipped by …" lines. */
  actor?: string;
  /** What the follow-up check read, for the verification message. */
  recovery?: RecoveryResult;
}

/** The audit action of each check outcome. */
const VERIFIED: Record<CheckOutcome, string> = {
  recovered: "verified: recovered",
  "not-yet": "verified: not yet",
  "could-not-check": "verified: could not check",
};

const QUEUE_EFFECTS = new Set<Effect["type"]>(["apply-change", "schedule-check", "revert-change"]);
/** Effects that are only something said in Slack; their messages may be saved with the walk. */
const MESSAGE_EFFECTS = new Set<Effect["type"]>(["post-proposal", "update-proposal", "post-ephemeral"]);

export class RemediationEffects {
  constructor(
    private readonly deps: RemediationDeps,
    private readonly settings: RemediationSettings,
  ) {}

  async execute(record: WalkRecord, effects: readonly Effect[], extra: ExecuteExtra = {}): Promise<void> {
    const approvers = extra.messagesRecorded ? [] : await this.approversFor(record, effects);
    for (const effect of effects) {
      try {
        if (!extra.messagesRecorded)
          for (const message of this.messagesOf(record, effect, effects, extra, approvers))
            await this.deliver(record, message);
        if (MESSAGE_EFFECTS.has(effect.type)) continue;
        await this.perform(record, effect);
      } catch (error) {
        if (QUEUE_EFFECTS.has(effect.type)) throw error;
        this.deps.log.warn(
          { effect: effect.type, err: asCodedError(error).message },
          "remediation effect failed",
        );
      }
    }
    await this.syncCard(record, { queued: extra.messagesRecorded === true }).catch((error: unknown) =>
      this.deps.log.warn({ err: asCodedError(error).message }, "status card update failed"),
    );
  }

  /**
   * What the effects say in Slack, as data, built without I/O so the walk store can save them
   * in the same atomic step as the record they belong to.
   */
  messages(
    record: WalkRecord,
    effects: readonly Effect[],
    extra: ExecuteExtra,
    approvers: readonly string[],
  ): WalkMessage[] {
    return effects.flatMap((effect) => this.messagesOf(record, effect, effects, extra, approvers));
  }

  /** Posts the live proposal of a step if it is not in the thread yet (idempotent). */
  async ensureProposalPosted(record: WalkRecord, stepId: StepId): Promise<void> {
    const { approvers } = await this.settings.policy(record.table);
    const built = this.proposalView(record, stepId, approvers);
    if (built)
      await this.deliver(record, {
        kind: "post-proposal",
        name: `proposal-${built.proposalId}`,
        view: built.view,
      });
    await this.syncCard(record, { queued: false });
  }

  /** The table's approvers when a proposal is shown; undefined (no proposal message) when unreadable. */
  private async approversFor(record: WalkRecord, effects: readonly Effect[]) {
    if (!effects.some((e) => e.type === "post-proposal" || e.type === "update-proposal")) return [];
    try {
      return (await this.settings.policy(record.table)).approvers;
    } catch (error) {
      this.deps.log.warn({ err: asCodedError(error).message }, "approvers unreadable; proposal not shown");
      return undefined;
    }
  }

  /** Hands one message to the notifier; the card is edited from the saved walk. */
  private async deliver(record: WalkRecord, message: WalkMessage): Promise<void> {
    if (message.kind === "card") return this.syncCard(record, { queued: false });
    return this.deps.notifier.say(record, message);
  }

  private messagesOf(
    record: WalkRecord,
    effect: Effect,
    all: readonly Effect[],
    extra: ExecuteExtra,
    approvers: readonly string[] | undefined,
  ): WalkMessage[] {
    switch (effect.type) {
      case "post-proposal": {
        const built = this.proposalView(record, effect.stepId, approvers);
        return built
          ? [{ kind: "post-proposal", name: `proposal-${built.proposalId}`, view: built.view }]
          : [];
      }
      case "update-proposal": {
        const built = this.proposalView(record, effect.stepId, approvers);
        if (!built) return [];
        const decision = decisionFor(built.run, effect.phase, extra.actor, this.deps.now());
        // A superseded or decided proposal must not offer buttons any more.
        const withButtons = !decision && effect.phase !== "superseded";
        const edit: WalkMessage = {
          kind: "update-proposal",
          name: `proposal-${built.proposalId}`,
          view: decision ? { ...built.view, decision } : built.view,
          note: effect.note,
          withButtons,
        };
        if (effect.note?.kind !== "apply-failed") return [edit];
        // An edit notifies nobody: a failed apply is also said in the thread, saved with the
        // outcome that caused it.
        const stepTitle = this.settings.step(record.walk.playbookId, effect.stepId)?.title ?? effect.stepId;
        return [
          edit,
          {
            kind: "note",
            name: `apply-${built.proposalId}-${record.applySeq}`,
            note: { kind: "apply-failed", stepTitle, detail: effect.note.message },
          },
        ];
      }
      case "post-ephemeral":
        return [{ kind: "ephemeral", user: effect.user, notice: effect.notice }];
      case "update-verification": {
        const view = this.verificationView(record, effect, all, extra.recovery);
        return view ? [{ kind: "upsert-verification", name: view.name, view: view.view }] : [];
      }
      case "resolve-incident":
        return [{ kind: "postmortem", name: "postmortem" }];
      case "walk-ended":
        return [
          {
            kind: "note",
            name: `walk-ended-${record.proposals.length}`,
            note:
              effect.outcome === "stopped"
                ? { kind: "walk-stopped", table: record.table, by: effect.by }
                : {
                    kind: "walk-stalled",
                    table: record.table,
                    afterStepId: effect.afterStepId,
                    ...(effect.terminal ? { terminalTitle: effect.terminal.title } : {}),
                    ...(effect.unseen?.length ? { unseen: effect.unseen } : {}),
                  },
          },
        ];
      default:
        return [];
    }
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

  /** A step that could not be proposed: said in the thread and audited, never proposed blind. */
  async noteProposalFailed(
    record: Pick<WalkRecord, "incidentId" | "table" | "channel" | "walk" | "proposedForDiagnosis">,
    stepId: StepId,
    reason: string,
    actor?: string,
  ): Promise<void> {
    const stepTitle = this.settings.step(record.walk.playbookId, stepId)?.title ?? stepId;
    const at = this.deps.now();
    const note = { kind: "proposal-failed", stepTitle, reason, table: record.table } as const;
    await this.deps.notifier
      .say(record, { kind: "note", name: `proposal-failed-${stepId}-${at}`, note })
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

  private async perform(record: WalkRecord, effect: Effect): Promise<void> {
    const { deps } = this;
    switch (effect.type) {
      case "post-proposal":
      case "update-proposal":
      case "post-ephemeral":
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
        await this.deps.audit.append(record.table, {
          atMs: this.deps.now(),
          actor: "bot",
          action: VERIFIED[effect.outcome],
          stepId: effect.stepId,
          outcome: "ok",
          detail: `check ${effect.checkIndex} of ${effect.checksTotal}: ${effect.detail}`,
          incidentId: record.incidentId,
        });
        return;
      case "resolve-incident":
        return this.finishResolution(record);
      case "offer-next-step":
        // Said by the verification message (its button); proposing is the use case's next decision.
        return;
      case "walk-ended": {
        const incident = await deps.store.require(record.incidentId);
        if (effect.outcome === "stopped" && incident.state !== "stopped")
          await deps.store.close(incident, "stopped", deps.now());
        if (effect.outcome === "stopped") await recordIncidentHistory(deps, record, "stopped", deps.now());
        return;
      }
      case "audit":
        // Stale jobs and duplicate results the bot itself ignored are noise in the history.
        if (effect.entry.outcome === "ignored" && effect.entry.actor === "bot") return;
        await deps.audit.record(record.table, effect.entry, record.incidentId);
        // An item marked done after the incident closed: its history says so too, and the posted
        // postmortem is replaced by the version drafted from it.
        if (
          effect.entry.action === "item-done" &&
          effect.entry.outcome === "ok" &&
          record.walk.status === "resolved"
        ) {
          await recordIncidentHistory(deps, record, "resolved", deps.now());
          await deps.slack.send({ kind: "postmortem", incidentId: record.incidentId, edit: true });
        }
        return;
    }
  }

  /**
   * What resolving does after the record is saved: the incident closed, its history record
   * written. Idempotent, so a check job retried after a crash finishes it (jobs.ts).
   */
  async finishResolution(record: WalkRecord): Promise<void> {
    const { deps } = this;
    const incident = await deps.store.require(record.incidentId);
    if (incident.state !== "resolved") await deps.store.close(incident, "resolved", deps.now());
    await deps.onResolution?.("before-history");
    await recordIncidentHistory(deps, record, "resolved", deps.now());
    await deps.onResolution?.("after-history");
  }

  private runFor(record: WalkRecord, stepId: StepId): StepRun | undefined {
    if (record.walk.current?.stepId === stepId) return record.walk.current;
    return record.walk.history.findLast((r) => r.stepId === stepId);
  }

  private proposalView(record: WalkRecord, stepId: StepId, approvers: readonly string[] | undefined) {
    if (!approvers) return undefined;
    const run = this.runFor(record, stepId);
    const step = this.settings.step(record.walk.playbookId, stepId);
    const proposalId = proposalIdFor(record, stepId);
    if (!run || !step || !proposalId) return undefined;
    return { run, proposalId, view: proposalView(record, run, step, proposalId, approvers) };
  }

  private verificationView(
    record: WalkRecord,
    effect: Extract<Effect, { type: "update-verification" }>,
    all: readonly Effect[],
    recovery: RecoveryResult | undefined,
  ): { name: string; view: VerificationView } | undefined {
    const proposalId = proposalIdFor(record, effect.stepId);
    const run = this.runFor(record, effect.stepId);
    const step = this.settings.step(record.walk.playbookId, effect.stepId);
    if (!proposalId || !run || !step) return undefined;
    let outcome: VerificationOutcome | undefined;
    if (effect.recovered) {
      const snapshot = recovery?.firstNewSnapshot;
      const committedAtMs = snapshot?.timestampMs ?? this.deps.now();
      outcome = {
        kind: "recovered",
        snapshotId: snapshot?.id ?? "unknown",
        committedAtMs,
        recoveredAfterMs: recoveryAfterMs({ atMs: committedAtMs, changeAtMs: changeTimeOf(run) }),
        credit: recovery?.credit ?? "fixed",
      };
    } else if (effect.checkIndex >= effect.checksTotal && effect.outcome === "could-not-check") {
      outcome = { kind: "could-not-check" };
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
                title:
                  this.settings.step(record.walk.playbookId, offer.nextStepId)?.title ?? offer.nextStepId,
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
    return { name: `verify-${proposalId}`, view };
  }

  /**
   * Keeps the incident's state with the walk's (what `/iceberg status` lists), and edits the card
   * when the outbox does not already carry the edit. The card itself is rendered from the saved
   * walk record (core/story), so it says what the thread says.
   */
  private async syncCard(record: WalkRecord, opts: { queued: boolean }): Promise<void> {
    const workflow = walkStory(record, undefined).workflow;
    const { store, slack, now } = this.deps;
    const incident = await store.get(record.incidentId);
    if (!incident) return;
    const open = incident.state !== "resolved" && incident.state !== "stopped";
    const moved = workflow !== undefined && open && incident.state !== workflow;
    if (moved) {
      const version = await store.update(record.incidentId, { state: workflow }, now(), true);
      if (!opts.queued) await slack.send({ kind: "card", incidentId: record.incidentId, version });
      return;
    }
    if (!opts.queued && workflow !== undefined)
      await slack.send({ kind: "card", incidentId: record.incidentId, version: incident.cardVersion });
  }
}
