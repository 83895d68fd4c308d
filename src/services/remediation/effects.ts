// Carries out what the playbook machine asked for: thread messages (posted once, then edited in
// place), ephemeral refusals, jobs (apply, follow-up checks, revert), audit rows and the status card.
// Slack failures are logged and do not undo a recorded decision; queue failures are thrown so the
// caller's job is retried.

import type { StepId } from "../../core/ids.js";
import { isRevertable } from "../../core/remediation/events/shared.js";
import { proposalIdFor, type RemediationRecord } from "../../core/remediation/record.js";
import { checkOutcome, type Effect, type Notice } from "../../core/remediation/walk.js";
import { walkStory } from "../../core/story/steps.js";
import type { CheckOutcome, RecoveryResult } from "../../core/verification/check.js";
import { changeTimeOf, recoveryAfterMs } from "../../core/verification/recovery.js";
import { asCodedError } from "../../errors.js";
import { recordIncidentHistory } from "../history/record-incident.js";
import type { RemediationMessage } from "../ports.js";
import type { VerificationOutcome } from "../view-models.js";
import { policyOf, type RemediationDeps, stepOf } from "./deps.js";
import { decisionFor, proposalView, verificationView } from "./views.js";

export interface ExecuteExtra {
  /** The remediation store already saved the effects' messages with the record (the outbox sends them). */
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

export async function execute(
  deps: RemediationDeps,
  record: RemediationRecord,
  effects: readonly Effect[],
  extra: ExecuteExtra = {},
): Promise<void> {
  const approvers = extra.messagesRecorded ? [] : await approversFor(deps, record, effects);
  for (const effect of effects) {
    try {
      if (!extra.messagesRecorded)
        for (const message of messagesOf(deps, record, effect, effects, extra, approvers))
          await deliver(deps, record, message);
      if (MESSAGE_EFFECTS.has(effect.type)) continue;
      await perform(deps, record, effect);
    } catch (error) {
      if (QUEUE_EFFECTS.has(effect.type)) throw error;
      deps.log.warn({ effect: effect.type, err: asCodedError(error).message }, "remediation effect failed");
    }
  }
  await syncCard(deps, record, { queued: extra.messagesRecorded === true }).catch((error: unknown) =>
    deps.log.warn({ err: asCodedError(error).message }, "status card update failed"),
  );
}

/**
 * What the effects say in Slack, as data, built without I/O so the remediation store can save them
 * in the same atomic step as the record they belong to.
 */
export function messages(
  deps: RemediationDeps,
  record: RemediationRecord,
  effects: readonly Effect[],
  extra: ExecuteExtra,
  approvers: readonly string[],
): RemediationMessage[] {
  return effects.flatMap((effect) => messagesOf(deps, record, effect, effects, extra, approvers));
}

/** Posts the live proposal of a step if it is not in the thread yet (idempotent). */
export async function ensureProposalPosted(
  deps: RemediationDeps,
  record: RemediationRecord,
  stepId: StepId,
): Promise<void> {
  const { approvers } = await policyOf(deps, record.table);
  for (const message of messagesOf(deps, record, { type: "post-proposal", stepId }, [], {}, approvers))
    await deliver(deps, record, message);
  await syncCard(deps, record, { queued: false });
}

/** Tells one person something about the incident's walk; a Slack failure is only logged. */
export async function tell(
  deps: RemediationDeps,
  incidentId: string,
  user: string,
  notice: Notice,
  failure: string,
): Promise<void> {
  const incident = await deps.store.get(incidentId);
  if (!incident) return;
  await deps.notifier
    .say({ incidentId: incident.id, channel: incident.channel }, { kind: "ephemeral", user, notice })
    .catch((error: unknown) => deps.log.warn({ err: asCodedError(error).message }, failure));
}

/** The table's approvers when a proposal is shown; undefined (no proposal message) when unreadable. */
async function approversFor(deps: RemediationDeps, record: RemediationRecord, effects: readonly Effect[]) {
  if (!effects.some((e) => e.type === "post-proposal" || e.type === "update-proposal")) return [];
  try {
    return (await policyOf(deps, record.table)).approvers;
  } catch (error) {
    deps.log.warn({ err: asCodedError(error).message }, "approvers unreadable; proposal not shown");
    return undefined;
  }
}

/** Hands one message to the notifier; the card is edited from the saved walk. */
async function deliver(
  deps: RemediationDeps,
  record: RemediationRecord,
  message: RemediationMessage,
): Promise<void> {
  if (message.kind === "card") return syncCard(deps, record, { queued: false });
  return deps.notifier.say(record, message);
}

function messagesOf(
  deps: RemediationDeps,
  record: RemediationRecord,
  effect: Effect,
  all: readonly Effect[],
  extra: ExecuteExtra,
  approvers: readonly string[] | undefined,
): RemediationMessage[] {
  switch (effect.type) {
    case "post-proposal": {
      const built = builtProposal(deps, record, effect.stepId, approvers);
      return built ? [{ kind: "post-proposal", name: `proposal-${built.proposalId}`, view: built.view }] : [];
    }
    case "update-proposal": {
      const built = builtProposal(deps, record, effect.stepId, approvers);
      if (!built) return [];
      const decision = decisionFor(built.run, effect.phase, extra.actor, deps.now());
      // A superseded or decided proposal must not offer buttons any more.
      const withButtons = !decision && effect.phase !== "superseded";
      const edit: RemediationMessage = {
        kind: "update-proposal",
        name: `proposal-${built.proposalId}`,
        view: decision ? { ...built.view, decision } : built.view,
        note: effect.note,
        withButtons,
      };
      if (effect.note?.kind !== "apply-failed") return [edit];
      // An edit notifies nobody: a failed apply is also said in the thread, saved with the
      // outcome that caused it.
      const stepTitle = stepOf(deps, record, effect.stepId)?.title ?? effect.stepId;
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
    case "update-verification":
      return verificationMessage(deps, record, effect, all, extra.recovery);
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
export async function ensurePending(deps: RemediationDeps, record: RemediationRecord): Promise<void> {
  const run = record.walk.current;
  const owed: Effect[] = [];
  if (run && proposalIdFor(record, run.stepId)) {
    if (run.phase === "approved") owed.push({ type: "apply-change", stepId: run.stepId });
    if (["applied", "done-by-hand", "verifying"].includes(run.phase)) {
      const checkIndex = run.checksDone + 1;
      const dueAt = (run.appliedAtMs ?? run.proposedAtMs) + checkIndex * run.intervalMs;
      const delayMs = Math.max(0, dueAt - deps.now());
      owed.push({ type: "schedule-check", stepId: run.stepId, checkIndex, delayMs });
    }
  }
  const reverting = record.walk.history.findLast((r) => r.phase === "reverting");
  if (reverting) owed.push({ type: "revert-change", stepId: reverting.stepId });
  for (const effect of owed) await perform(deps, record, effect);
}

async function perform(deps: RemediationDeps, record: RemediationRecord, effect: Effect): Promise<void> {
  const { incidentId } = record;
  switch (effect.type) {
    case "apply-change": {
      const proposalId = proposalIdFor(record, effect.stepId) ?? "p0";
      await deps.jobs.enqueue({
        kind: "apply",
        incidentId,
        stepId: effect.stepId,
        proposalId,
        attempt: record.applySeq,
      });
      return;
    }
    case "schedule-check": {
      const proposalId = proposalIdFor(record, effect.stepId) ?? "p0";
      const { stepId, checkIndex } = effect;
      await deps.jobs.enqueue({ kind: "check", incidentId, stepId, proposalId, checkIndex }, effect.delayMs);
      return;
    }
    case "revert-change":
      await deps.jobs.enqueue({
        kind: "revert",
        incidentId,
        stepId: effect.stepId,
        attempt: record.revertSeq,
      });
      return;
    case "update-verification":
      await deps.audit.append(record.table, {
        atMs: deps.now(),
        actor: "bot",
        action: VERIFIED[checkOutcome(effect.check)],
        stepId: effect.stepId,
        outcome: "ok",
        detail: `check ${effect.check.index} of ${effect.checksTotal}: ${effect.check.detail}`,
        incidentId,
      });
      return;
    case "resolve-incident":
      return finishResolution(deps, record);
    case "walk-ended": {
      const incident = await deps.store.require(incidentId);
      if (effect.outcome === "stopped" && incident.state !== "stopped")
        await deps.store.close(incident, "stopped", deps.now());
      if (effect.outcome === "stopped") await recordIncidentHistory(deps, record, "stopped", deps.now());
      return;
    }
    case "audit":
      // Stale jobs and duplicate results the bot itself ignored are noise in the history.
      if (effect.entry.outcome === "ignored" && effect.entry.actor === "bot") return;
      await deps.audit.record(record.table, effect.entry, incidentId);
      // An item marked done after the incident closed: its history says so too, and the posted
      // postmortem is replaced by the version drafted from it.
      if (
        effect.entry.action === "item-done" &&
        effect.entry.outcome === "ok" &&
        record.walk.status === "resolved"
      ) {
        await recordIncidentHistory(deps, record, "resolved", deps.now());
        await deps.slack.send({ kind: "postmortem", incidentId, edit: true });
      }
      return;
    default:
      // Messages only, or (offer-next-step) said by the verification message's button: proposing
      // is the use case's next decision.
      return;
  }
}

/**
 * What resolving does after the record is saved: the incident closed, its history record
 * written. Idempotent, so a check job retried after a crash finishes it (jobs.ts).
 */
export async function finishResolution(deps: RemediationDeps, record: RemediationRecord): Promise<void> {
  const incident = await deps.store.require(record.incidentId);
  if (incident.state !== "resolved") await deps.store.close(incident, "resolved", deps.now());
  await deps.onResolution?.("before-history");
  await recordIncidentHistory(deps, record, "resolved", deps.now());
  await deps.onResolution?.("after-history");
}

/** A step's newest run, its playbook definition and its live proposal id, when all three are known. */
function proposalOf(deps: RemediationDeps, record: RemediationRecord, stepId: StepId) {
  const { current, history } = record.walk;
  const run = current?.stepId === stepId ? current : history.findLast((r) => r.stepId === stepId);
  const step = stepOf(deps, record, stepId);
  const proposalId = proposalIdFor(record, stepId);
  return run && step && proposalId ? { run, step, proposalId } : undefined;
}

function builtProposal(
  deps: RemediationDeps,
  record: RemediationRecord,
  stepId: StepId,
  approvers: readonly string[] | undefined,
) {
  const found = approvers && proposalOf(deps, record, stepId);
  return (
    found && { ...found, view: proposalView(record, found.run, found.step, found.proposalId, approvers) }
  );
}

function verificationMessage(
  deps: RemediationDeps,
  record: RemediationRecord,
  effect: Extract<Effect, { type: "update-verification" }>,
  all: readonly Effect[],
  recovery: RecoveryResult | undefined,
): RemediationMessage[] {
  const found = proposalOf(deps, record, effect.stepId);
  if (!found) return [];
  const { run, proposalId } = found;
  let outcome: VerificationOutcome | undefined;
  const last = effect.check.index >= effect.checksTotal;
  if (effect.check.recovered) {
    const snapshot = recovery?.firstNewSnapshot;
    const committedAtMs = snapshot?.timestampMs ?? deps.now();
    outcome = {
      kind: "recovered",
      snapshotId: snapshot?.id ?? "unknown",
      committedAtMs,
      recoveredAfterMs: recoveryAfterMs({ atMs: committedAtMs, changeAtMs: changeTimeOf(run) }),
      credit: recovery?.credit ?? "fixed",
    };
  } else if (last && checkOutcome(effect.check) === "could-not-check") {
    outcome = { kind: "could-not-check" };
  } else if (last) {
    const offer = all.find((e) => e.type === "offer-next-step");
    outcome = {
      kind: "ineffective",
      revertable: isRevertable(run),
      ...(offer?.type === "offer-next-step"
        ? {
            nextStep: {
              stepId: offer.nextStepId,
              title: stepOf(deps, record, offer.nextStepId)?.title ?? offer.nextStepId,
            },
          }
        : {}),
    };
  }
  const check = { index: effect.check.index, total: effect.checksTotal };
  const view = verificationView(record, run, proposalId, check, recovery, outcome);
  return [{ kind: "upsert-verification", name: `verify-${proposalId}`, view }];
}

/**
 * Keeps the incident's state with the walk's (what `/iceberg status` lists), and edits the card
 * when the outbox does not already carry the edit. The card itself is rendered from the saved
 * remediation record (core/story), so it says what the thread says.
 */
async function syncCard(
  deps: RemediationDeps,
  record: RemediationRecord,
  opts: { queued: boolean },
): Promise<void> {
  const workflow = walkStory(record, undefined).workflow;
  const { store, slack, now } = deps;
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
