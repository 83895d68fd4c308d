// An approval from the apply form (or the autopilot under its grant).

import type { Effect, StepRun, TransitionResult, WalkState } from "../walk.js";
import {
  alreadyHandled,
  approvalsNeeded,
  audit,
  type EventOf,
  ephemeral,
  findStep,
  type Handler,
  ignored,
  openProposal,
  refuse,
  update,
} from "./shared.js";

export const onApprove: Handler<"approve"> = (state, event, now, ctx) => {
  const cur = openProposal(state, event, now, ctx);
  if ("effects" in cur) return cur;
  const step = findStep(ctx, cur.stepId);
  if (!step) return ignored(state, now, event, event.user, `step ${cur.stepId} is not in the playbook`);

  const gate = phaseRefusal(state, event, now, cur);
  if (gate) return gate;

  if (!step.automatic || cur.change.kind === "manual") {
    return refuse(state, now, event, event.user, { kind: "manual-step" });
  }
  const given = new Set(event.confirmations ?? []);
  const missing = step.confirmations.filter((c) => !given.has(c));
  if (missing.length > 0) {
    return refuse(state, now, event, event.user, { kind: "confirm-first", missing });
  }
  // A failed attempt (confirmed not applied) starts the approval over: it is a new decision.
  const earlier = cur.phase === "failed" ? [] : cur.approvals;
  const needed = approvalsNeeded(step);
  if (earlier.some((a) => a.user === event.user)) {
    return refuse(state, now, event, event.user, {
      kind: "second-approver-needed",
      approvals: cur.approvals.length,
      needed,
    });
  }
  const approvals = [
    ...earlier,
    { user: event.user, reason: event.reason, confirmations: [...given], atMs: now },
  ];
  if (approvals.length < needed) {
    const next: StepRun = { ...cur, phase: "proposed", approvals, failure: undefined };
    return {
      state: { ...state, current: next },
      effects: [
        update(cur.stepId, "proposed", {
          kind: "approval-recorded",
          by: event.user,
          approvals: approvals.length,
          needed,
          approverUserIds: approvals.map((a) => a.user),
        }),
        ephemeral(event.user, { kind: "approval-recorded" }),
        approvalAudit(state, now, event, `approval ${approvals.length} of ${needed}`),
      ],
    };
  }
  const next: StepRun = { ...cur, phase: "approved", approvals, failure: undefined };
  return {
    state: { ...state, current: next },
    effects: [
      update(cur.stepId, "approved", { kind: "approved", approverUserIds: approvals.map((a) => a.user) }),
      { type: "apply-change", stepId: cur.stepId },
      approvalAudit(
        state,
        now,
        event,
        `${needed > 1 ? `approval ${approvals.length} of ${needed}, ` : ""}approved ${cur.stepId}`,
      ),
    ],
  };
};

/** Refuses an approval the step's phase rules out (already approved, in place, or failed unclearly). */
function phaseRefusal(
  state: WalkState,
  event: EventOf<"approve">,
  now: number,
  cur: StepRun,
): TransitionResult | undefined {
  switch (cur.phase) {
    case "approved":
    case "applying":
      return alreadyHandled(state, now, event, event.user, {
        kind: "already-approved",
        approverUserIds: cur.approvals.map((a) => a.user),
      });
    case "applied":
    case "done-by-hand":
    case "verifying":
      return alreadyHandled(state, now, event, event.user, {
        kind: "already-in-place",
        verifyEndsAtMs: cur.verifyEndsAtMs ?? now,
      });
    case "failed":
      if (cur.failure?.outcome === "conflict") {
        return refuse(state, now, event, event.user, { kind: "await-refresh" });
      }
      if (cur.failure?.outcome === "unknown") {
        return refuse(state, now, event, event.user, { kind: "outcome-unknown" });
      }
      return undefined;
    case "proposed":
      return undefined;
    default:
      return refuse(state, now, event, event.user, { kind: "nothing-to-approve", phase: cur.phase });
  }
}

/** The history keeps each approver's reason, not only the last one's. */
function approvalAudit(state: WalkState, now: number, event: EventOf<"approve">, detail: string): Effect {
  return audit(state, now, event.user, event, "ok", `${detail}${event.reason ? `: ${event.reason}` : ""}`);
}
