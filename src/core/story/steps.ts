// Where the playbook walk stands, from the saved remediation record alone: every step tried or offered,
// the state of each, its checks as they were judged, and the buttons a person can press now. The
// card, App Home and `/iceberg status` read this, so they change with the thread's own messages.

import type { IncidentState } from "../incident/model.js";
import { isAutomatic } from "../remediation/change.js";
import { isRevertable, nextTarget } from "../remediation/events/shared.js";
import { proposalIdFor, type RemediationRecord, stepIndex } from "../remediation/record.js";
import type { Playbook } from "../remediation/schema.js";
import {
  type CheckRecord,
  checkOutcome,
  type MachineContext,
  runsOf,
  type StepRun,
} from "../remediation/walk.js";
import { madeByHand } from "../verification/recovery.js";
import type { StepState, StoryCheck, StoryDecision, StoryStep } from "./model.js";

function checkOf(check: CheckRecord): StoryCheck {
  const { index, atMs, detail, unseen } = check;
  return { index, atMs, outcome: checkOutcome(check), detail, unseen: unseen?.length ? unseen : undefined };
}

function stateOf(run: StepRun, readOnly: boolean): StepState {
  switch (run.phase) {
    case "proposed":
      return "awaiting-approval";
    case "failed":
      return "apply-failed";
    case "approved":
    case "applying":
      return "applying";
    case "applied":
    case "done-by-hand":
    case "verifying":
      return "verifying";
    case "recovered":
      return "done";
    case "ineffective": {
      // A check that could not read what recovery is judged on says so, read-only or not; a read-only
      // check that answered did its job; a change that did not help is "no recovery".
      if (run.checks.at(-1)?.outcome === "could-not-check") return "could-not-check";
      return readOnly ? "done" : "no-recovery";
    }
    case "skipped":
      return "skipped";
    case "reverting":
      return "reverting";
    case "reverted":
      return "reverted";
    case "stopped":
    case "superseded":
      return "stopped";
  }
}

function decisionsOf(
  record: RemediationRecord,
  run: StepRun,
  live: boolean,
  playbook: Playbook | undefined,
): StoryDecision[] {
  const proposalId = proposalIdFor(record, run.stepId);
  if (proposalId === undefined || (run.change.kind === "read-only-check" && run.phase === "proposed"))
    return [];
  const action = { incidentId: record.incidentId, stepId: run.stepId, proposalId };
  if (live && (run.phase === "proposed" || run.phase === "failed")) {
    const step = playbook?.steps.find((s) => s.id === run.stepId);
    return [{ kind: step && isAutomatic(step, run.change) ? "apply" : "done", action }];
  }
  // The last step ended without recovery and the walk waits for a person: the verification's buttons.
  if (live && (run.phase === "ineffective" || run.phase === "reverted")) {
    const out: StoryDecision[] = [];
    if (run.phase === "ineffective" && isRevertable(run)) out.push({ kind: "revert", action });
    const next = playbook ? nextTarget(record.walk, run.stepId, { playbook } as MachineContext) : undefined;
    if (next?.kind === "step") {
      const title = playbook?.steps.find((s) => s.id === next.stepId)?.title;
      out.push({ kind: "next", ...(title ? { title } : {}), action: { ...action, stepId: next.stepId } });
    }
    return out;
  }
  return [];
}

function storyStep(
  record: RemediationRecord,
  run: StepRun,
  live: boolean,
  playbook: Playbook | undefined,
): StoryStep {
  const readOnly = run.change.kind === "read-only-check";
  const state = stateOf(run, readOnly);
  return {
    stepId: run.stepId,
    proposalId: proposalIdFor(record, run.stepId),
    title: playbook?.steps.find((s) => s.id === run.stepId)?.title,
    index: stepIndex(record, run.stepId),
    state,
    change: run.change,
    proposedAtMs: run.proposedAtMs,
    approvedBy: run.approvals.map((a) => a.user),
    changeAtMs: run.appliedAtMs,
    changeBy: run.appliedBy,
    byHand: madeByHand(run) || undefined,
    // A read-only check counts its checks too: the thread says "check n of m" for it as well.
    check: state === "verifying" ? { index: Math.max(1, run.checksDone), total: run.checksTotal } : undefined,
    checks: run.checks.map(checkOf),
    decisions: decisionsOf(record, run, live, playbook),
    readOnly: readOnly || undefined,
    endedBy: run.phase === "skipped" ? run.skippedBy : undefined,
    endedAtMs: run.endedAtMs,
  };
}

/**
 * Every step of the walk, oldest first, the one in play (or the last) marked as the step, and the
 * workflow the walk is in, when the walk decides it.
 */
export function walkStory(
  record: RemediationRecord | undefined,
  playbook: Playbook | undefined,
): { steps: StoryStep[]; step?: StoryStep; workflow?: IncidentState } {
  if (!record) return { steps: [] };
  const walk = record.walk;
  const waiting = walk.status === "active" && walk.current === undefined;
  const runs = runsOf(walk);
  const steps = runs.map((run, i) => {
    const isLast = i === runs.length - 1;
    const live = isLast && walk.status === "active" && (run === walk.current || waiting);
    return storyStep(record, run, live, playbook);
  });
  const step = steps[steps.length - 1];
  return { steps, step, workflow: walk.status === "active" ? workflowOf(step) : walk.status };
}

/** The workflow of an active walk: where its last step stands. */
function workflowOf(step: StoryStep | undefined): IncidentState | undefined {
  switch (step?.state) {
    case undefined:
      return undefined;
    case "applying":
    case "reverting":
      return "applying";
    case "verifying":
      return "verifying";
    default:
      // A proposal waits, or a step ended without recovery and the next decision is a person's.
      return "awaiting-approval";
  }
}
