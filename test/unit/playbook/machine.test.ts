import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderNotice, renderProposalNote } from "../../../src/adapters/slack/render/walk-notice.js";
import type { ApprovalPolicy } from "../../../src/core/approval/policy.js";
import type { StepId } from "../../../src/core/ids.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import { transition } from "../../../src/core/remediation/machine.js";
import type { Playbook } from "../../../src/core/remediation/schema.js";
import {
  type Effect,
  type MachineContext,
  type RemediationEvent,
  startWalk,
  type WalkState,
} from "../../../src/core/remediation/walk.js";
import type { Change } from "../../../src/core/report/schema.js";

const parsed = parsePlaybook(readFileSync("playbooks/commit-failures.yaml", "utf8"), "commit-failures.yaml");
const playbook = parsed.playbook as Playbook;

const ALICE = "U0ALICE";
const BOB = "U0BOB";
const CAROL = "U0CAROL"; // in the on-call group
const MALLORY = "U0MALLORY";

const policy: ApprovalPolicy = {
  table: "db.events",
  approvers: [ALICE, BOB, "S0ONCALL"],
  groupMembers: { S0ONCALL: [CAROL] },
};
const ctx: MachineContext = { playbook, policy, followUp: { intervalSeconds: 60, checks: 3 } };
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const MIN = 60_000;

const retries: Change = {
  kind: "table-properties",
  table: "db.events",
  changes: [{ key: "commit.retry.num-retries", current: null, proposed: "10" }],
};
const isolation: Change = {
  kind: "table-properties",
  table: "db.events",
  changes: [{ key: "write.merge.isolation-level", current: null, proposed: "snapshot" }],
};
const manual: Change = { kind: "manual", checklist: ["do it"] };

/** What the person sees for an ephemeral effect: its notice, as the Slack renderer words it. */
function seen(effect: { notice: Parameters<typeof renderNotice>[0] } | undefined): string | undefined {
  return effect && renderNotice(effect.notice);
}

interface Run {
  state: WalkState;
  effects: Effect[];
  /** Effects of the last event only. */
  last: Effect[];
}

/** Folds events (each at its own time) into a walk, keeping every effect. */
function play(events: [RemediationEvent, number][], from?: WalkState, context: MachineContext = ctx): Run {
  let state = from ?? startWalk("db.events", playbook.id, T0);
  const effects: Effect[] = [];
  let last: Effect[] = [];
  for (const [event, now] of events) {
    const result = transition(state, event, now, context);
    state = result.state;
    last = result.effects;
    effects.push(...last);
  }
  return { state, effects, last };
}

const of = <T extends Effect["type"]>(effects: Effect[], type: T) =>
  effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);

const propose = (stepId: StepId, change: Change, requestedBy?: string): RemediationEvent => ({
  type: "propose",
  stepId,
  change,
  requestedBy,
});
const approve = (stepId: StepId, user: string, confirmations: string[] = []): RemediationEvent => ({
  type: "approve",
  stepId,
  user,
  confirmations,
});
const check = (stepId: StepId, checkIndex: number, recovered: boolean): RemediationEvent => ({
  type: "check",
  stepId,
  checkIndex,
  result: { recovered, detail: recovered ? "snapshot 42 from job 4f2a" : "no new snapshot" },
});

/** raise-commit-retries proposed, approved by Alice, applied at T0+2m. */
function appliedRetries(): Run {
  return play([
    [propose("raise-commit-retries", retries), T0],
    [approve("raise-commit-retries", ALICE), T0 + MIN],
    [{ type: "apply-started", stepId: "raise-commit-retries" }, T0 + MIN],
    [
      {
        type: "apply-succeeded",
        stepId: "raise-commit-retries",
        previous: { "commit.retry.num-retries": null },
      },
      T0 + 2 * MIN,
    ],
  ]);
}

describe("playbook state machine: the happy path", () => {
  it("proposes, applies once, verifies and resolves", () => {
    const run = appliedRetries();
    expect(of(run.effects, "post-proposal")).toEqual([
      { type: "post-proposal", stepId: "raise-commit-retries" },
    ]);
    expect(run.state.current).toMatchObject({ checksTotal: 3, approvals: [{ user: ALICE }] });
    expect(of(run.effects, "apply-change")).toHaveLength(1);
    expect(run.state.current?.phase).toBe("applied");
    expect(run.state.current?.verifyEndsAtMs).toBe(T0 + 2 * MIN + 3 * MIN);
    expect(of(run.last, "schedule-check")).toEqual([
      { type: "schedule-check", stepId: "raise-commit-retries", delayMs: MIN, checkIndex: 1 },
    ]);

    const after = play(
      [
        [check("raise-commit-retries", 1, false), T0 + 3 * MIN],
        [check("raise-commit-retries", 2, true), T0 + 4 * MIN],
      ],
      run.state,
    );
    expect(after.state.status).toBe("resolved");
    expect(after.state.current).toBeUndefined();
    expect(after.state.history.at(-1)?.phase).toBe("recovered");
    expect(of(after.effects, "update-verification").map((e) => [e.check.index, e.check.recovered])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(of(after.effects, "resolve-incident")).toEqual([
      { type: "resolve-incident", stepId: "raise-commit-retries" },
    ]);
    const recovered = after.state.history.at(-1);
    expect((recovered?.endedAtMs ?? 0) - (recovered?.appliedAtMs ?? 0)).toBe(2 * MIN);
  });

  it("accepts an approval from a member of an approver user group", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [approve("raise-commit-retries", CAROL), T0],
    ]);
    expect(run.state.current?.phase).toBe("approved");
    expect(of(run.last, "apply-change")).toHaveLength(1);
  });
});

describe("playbook state machine: idempotency and abuse", () => {
  const cases: { name: string; events: [RemediationEvent, number][]; phase: string; ephemeral?: RegExp }[] = [
    {
      name: "a double click applies once",
      events: [
        [propose("raise-commit-retries", retries), T0],
        [approve("raise-commit-retries", ALICE), T0],
        [approve("raise-commit-retries", ALICE), T0],
      ],
      phase: "approved",
      ephemeral: /Already approved by <@U0ALICE>/,
    },
    {
      name: "a Slack retry while applying applies nothing",
      events: [
        [propose("raise-commit-retries", retries), T0],
        [approve("raise-commit-retries", ALICE), T0],
        [{ type: "apply-started", stepId: "raise-commit-retries" }, T0],
        [approve("raise-commit-retries", BOB), T0],
      ],
      phase: "applying",
      ephemeral: /applied once/,
    },
    {
      name: "approving an applied change points at the verification end",
      events: [
        [propose("raise-commit-retries", retries), T0],
        [approve("raise-commit-retries", ALICE), T0],
        [{ type: "apply-succeeded", stepId: "raise-commit-retries", previous: {} }, T0],
        [approve("raise-commit-retries", BOB), T0],
      ],
      phase: "applied",
      ephemeral: /verification runs until 09:03 UTC/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = play(c.events);
      expect(of(run.effects, "apply-change")).toHaveLength(1);
      expect(of(run.last, "apply-change")).toHaveLength(0);
      expect(run.state.current?.phase).toBe(c.phase);
      expect(seen(of(run.last, "post-ephemeral")[0])).toMatch(c.ephemeral as RegExp);
    });
  }

  it("refuses a user who is not an approver, names who can, and leaves the state as it was", () => {
    const before = play([[propose("raise-commit-retries", retries), T0]]).state;
    const result = transition(before, approve("raise-commit-retries", MALLORY), T0, ctx);
    expect(result.state).toBe(before);
    const [ephemeral] = of(result.effects, "post-ephemeral");
    expect(ephemeral).toEqual({
      type: "post-ephemeral",
      user: MALLORY,
      notice: {
        kind: "not-approver",
        table: "db.events",
        reason: "not-listed",
        approverUserIds: [ALICE, BOB],
        approverGroupIds: ["S0ONCALL"],
      },
    });
    expect(JSON.stringify(result.effects)).not.toMatch(/<[@!]/);
    expect(seen(ephemeral)).toContain("ask <!subteam^S0ONCALL>");
    expect(of(result.effects, "audit")[0]?.entry).toMatchObject({ actor: MALLORY, outcome: "refused" });
    expect(of(result.effects, "apply-change")).toHaveLength(0);
  });

  it("refuses everyone when no approvers are configured", () => {
    const closed: MachineContext = {
      ...ctx,
      policy: { table: "db.events", approvers: [], groupMembers: {} },
    };
    const run = play(
      [
        [propose("raise-commit-retries", retries), T0],
        [approve("raise-commit-retries", ALICE), T0],
      ],
      undefined,
      closed,
    );
    expect(run.state.current?.phase).toBe("proposed");
    expect(of(run.last, "post-ephemeral")[0]?.notice).toMatchObject({
      kind: "not-approver",
      reason: "no-approvers",
    });
    expect(seen(of(run.last, "post-ephemeral")[0])).toContain("BOT_CONFIG");
  });

  it("never applies a manual step: Apply is refused, Done by hand starts verification", () => {
    const run = play([
      [propose("one-committer-per-table", manual), T0],
      [approve("one-committer-per-table", ALICE), T0],
    ]);
    expect(of(run.effects, "apply-change")).toHaveLength(0);
    expect(seen(of(run.last, "post-ephemeral")[0])).toMatch(/Done by hand/);
    const done = play(
      [[{ type: "done-by-hand", stepId: "one-committer-per-table", user: BOB }, T0 + MIN]],
      run.state,
    );
    expect(done.state.current).toMatchObject({
      phase: "done-by-hand",
      appliedBy: BOB,
      appliedAtMs: T0 + MIN,
    });
    expect(of(done.last, "schedule-check")).toMatchObject([{ checkIndex: 1, delayMs: MIN }]);
  });

  it("ignores a repeated or stale follow-up check", () => {
    const run = appliedRetries();
    const first = play([[check("raise-commit-retries", 1, false), T0 + 3 * MIN]], run.state);
    const again = transition(first.state, check("raise-commit-retries", 1, false), T0 + 3 * MIN, ctx);
    expect(again.state).toBe(first.state);
    expect(again.effects.map((e) => e.type)).toEqual(["audit"]);
    const skipAhead = transition(first.state, check("raise-commit-retries", 3, true), T0 + 4 * MIN, ctx);
    expect(skipAhead.state).toBe(first.state);
  });

  it("does not apply after the walk is stopped while approved (apply-started is ignored)", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [approve("raise-commit-retries", ALICE), T0],
      [{ type: "stop", user: BOB }, T0],
      [{ type: "apply-started", stepId: "raise-commit-retries" }, T0],
    ]);
    expect(run.state.status).toBe("stopped");
    expect(run.state.current).toBeUndefined();
    expect(run.last.map((e) => e.type)).toEqual(["audit"]);
  });
});

describe("playbook state machine: risky steps", () => {
  const risky = (events: [RemediationEvent, number][]) =>
    play([[propose("review-isolation-level", isolation, ALICE), T0], ...events]);

  it("proposes with two approvals and the correctness confirmation", () => {
    const run = risky([]);
    expect(of(run.effects, "post-proposal")).toEqual([
      { type: "post-proposal", stepId: "review-isolation-level" },
    ]);
    const step = playbook.steps.find((s) => s.id === "review-isolation-level");
    expect(step).toMatchObject({ risky: true, confirmations: ["correctness"] });
    const once = play([[approve("review-isolation-level", BOB, ["correctness"]), T0]], run.state);
    expect(once.state.current?.phase).toBe("proposed");
    expect(of(once.last, "update-proposal")[0]?.note).toEqual({
      kind: "approval-recorded",
      by: BOB,
      approvals: 1,
      needed: 2,
      approverUserIds: [BOB],
    });
  });

  it("refuses an approval without the correctness confirmation", () => {
    const run = risky([[approve("review-isolation-level", BOB), T0]]);
    expect(run.state.current?.approvals).toEqual([]);
    expect(seen(of(run.last, "post-ephemeral")[0])).toMatch(/confirm: correctness/);
  });

  it("does not apply on the requester's approval alone, even clicked twice", () => {
    const run = risky([
      [approve("review-isolation-level", ALICE, ["correctness"]), T0],
      [approve("review-isolation-level", ALICE, ["correctness"]), T0],
    ]);
    expect(of(run.effects, "apply-change")).toHaveLength(0);
    expect(run.state.current?.phase).toBe("proposed");
    expect(run.state.current?.approvals.map((a) => a.user)).toEqual([ALICE]);
    expect(of(run.last, "post-ephemeral")[0]?.notice).toEqual({
      kind: "second-approver-needed",
      approvals: 1,
      needed: 2,
    });
  });

  it("applies once a second, distinct approver confirms", () => {
    const run = risky([
      [approve("review-isolation-level", ALICE, ["correctness"]), T0],
      [approve("review-isolation-level", BOB, ["correctness"]), T0 + MIN],
    ]);
    expect(run.state.current?.phase).toBe("approved");
    expect(of(run.effects, "apply-change")).toEqual([
      { type: "apply-change", stepId: "review-isolation-level" },
    ]);
  });
});

describe("playbook state machine: one change at a time", () => {
  it("refuses approving another step while a change is being verified, with the end time", () => {
    const verifying = play([[check("raise-commit-retries", 1, false), T0 + 3 * MIN]], appliedRetries().state);
    const result = transition(verifying.state, approve("commit-less-often", BOB), T0 + 4 * MIN, ctx);
    expect(result.state).toBe(verifying.state);
    const [ephemeral] = of(result.effects, "post-ephemeral");
    expect(ephemeral?.notice).toMatchObject({
      kind: "one-at-a-time",
      stepId: "raise-commit-retries",
      verifyEndsAtMs: T0 + 5 * MIN,
    });
    expect(seen(ephemeral)).toContain("raise-commit-retries");
    expect(seen(ephemeral)).toContain("09:05 UTC");
  });

  it("ignores a new proposal while a change is in flight", () => {
    const applied = appliedRetries();
    const result = transition(applied.state, propose("commit-less-often", manual), T0 + 3 * MIN, ctx);
    expect(result.state).toBe(applied.state);
    expect(result.effects.map((e) => e.type)).toEqual(["audit"]);
  });

  it("refuses skipping while the change is being applied", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [approve("raise-commit-retries", ALICE), T0],
      [{ type: "apply-started", stepId: "raise-commit-retries" }, T0],
      [{ type: "skip", stepId: "raise-commit-retries", user: BOB }, T0],
    ]);
    expect(run.state.current?.phase).toBe("applying");
    expect(of(run.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "applying-now", action: "skip" });
  });
});

describe("playbook state machine: skip, stop, ineffective, revert", () => {
  it("skip ends the step and offers the next one", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [{ type: "skip", stepId: "raise-commit-retries", user: BOB }, T0],
    ]);
    expect(run.state.current).toBeUndefined();
    expect(run.state.history.map((r) => [r.stepId, r.phase])).toEqual([["raise-commit-retries", "skipped"]]);
    expect(of(run.last, "offer-next-step")).toEqual([
      {
        type: "offer-next-step",
        nextStepId: "commit-less-often",
        reason: "skipped",
      },
    ]);
  });

  it("stop ends the walk; later buttons are refused", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [{ type: "stop", user: ALICE }, T0],
      [approve("raise-commit-retries", BOB), T0],
    ]);
    expect(run.state.status).toBe("stopped");
    expect(of(run.effects, "walk-ended")).toMatchObject([{ outcome: "stopped" }]);
    expect(of(run.effects, "apply-change")).toHaveLength(0);
    expect(seen(of(run.last, "post-ephemeral")[0])).toMatch(/has ended \(stopped\)/);
  });

  it("a step that does not help is declared ineffective after the agreed checks and the next is offered", () => {
    const run = play(
      [
        [check("raise-commit-retries", 1, false), T0 + 3 * MIN],
        [check("raise-commit-retries", 2, false), T0 + 4 * MIN],
        [check("raise-commit-retries", 3, false), T0 + 5 * MIN],
      ],
      appliedRetries().state,
    );
    expect(of(run.effects, "schedule-check").map((e) => e.checkIndex)).toEqual([2, 3]);
    expect(run.state.history.at(-1)).toMatchObject({ stepId: "raise-commit-retries", phase: "ineffective" });
    const note = of(run.last, "update-proposal")[0]?.note;
    expect(note).toEqual({ kind: "ineffective", checks: 3, revertable: true });
    expect(note && renderProposalNote(note)).toMatch(/Revert is available/);
    expect(of(run.last, "offer-next-step")).toMatchObject([
      { nextStepId: "commit-less-often", reason: "ineffective" },
    ]);
    expect(run.state.status).toBe("active");
  });

  it("walks past steps already tried and ends stalled at the terminal", () => {
    const run = play([
      [propose("commit-less-often", manual), T0],
      [{ type: "skip", stepId: "commit-less-often", user: ALICE }, T0],
      [propose("one-committer-per-table", manual), T0],
      [{ type: "skip", stepId: "one-committer-per-table", user: ALICE }, T0],
    ]);
    expect(of(run.effects, "offer-next-step").map((e) => e.nextStepId)).toEqual(["one-committer-per-table"]);
    expect(run.state.status).toBe("stalled");
    expect(of(run.last, "walk-ended")).toMatchObject([
      { outcome: "stalled", afterStepId: "one-committer-per-table", terminal: { id: "escalate" } },
    ]);
  });

  it("reverts an ineffective change with its previous values, once", () => {
    const ineffective = play(
      [1, 2, 3].map((i): [RemediationEvent, number] => [
        check("raise-commit-retries", i, false),
        T0 + (2 + i) * MIN,
      ]),
      appliedRetries().state,
    );
    const revert = play(
      [[{ type: "revert-requested", stepId: "raise-commit-retries", user: BOB }, T0 + 6 * MIN]],
      ineffective.state,
    );
    expect(of(revert.last, "revert-change")).toEqual([
      { type: "revert-change", stepId: "raise-commit-retries" },
    ]);
    const twice = play(
      [[{ type: "revert-requested", stepId: "raise-commit-retries", user: BOB }, T0 + 6 * MIN]],
      revert.state,
    );
    expect(of(twice.last, "revert-change")).toHaveLength(0);
    const done = play(
      [[{ type: "reverted", stepId: "raise-commit-retries", ok: true }, T0 + 7 * MIN]],
      revert.state,
    );
    expect(done.state.history.at(-1)?.phase).toBe("reverted");
  });

  it("refuses a revert while the next change is being verified", () => {
    const ineffective = play(
      [1, 2, 3].map((i): [RemediationEvent, number] => [
        check("raise-commit-retries", i, false),
        T0 + (2 + i) * MIN,
      ]),
      appliedRetries().state,
    );
    const next = play(
      [
        [propose("commit-less-often", manual), T0 + 6 * MIN],
        [{ type: "done-by-hand", stepId: "commit-less-often", user: ALICE }, T0 + 7 * MIN],
        [{ type: "revert-requested", stepId: "raise-commit-retries", user: BOB }, T0 + 8 * MIN],
      ],
      ineffective.state,
    );
    expect(of(next.last, "revert-change")).toHaveLength(0);
    expect(of(next.last, "post-ephemeral")[0]?.notice).toMatchObject({ kind: "one-at-a-time" });
  });
});

describe("playbook state machine: the Next step button", () => {
  const ineffective = () =>
    play(
      [
        [check("raise-commit-retries", 1, false), T0 + 3 * MIN],
        [check("raise-commit-retries", 2, false), T0 + 4 * MIN],
        [check("raise-commit-retries", 3, false), T0 + 5 * MIN],
      ],
      appliedRetries().state,
    ).state;
  const next = (stepId: StepId, user: string): RemediationEvent => ({ type: "next-requested", stepId, user });

  it("offers the step the playbook names next to an approver, changing nothing yet", () => {
    const from = ineffective();
    const run = play([[next("commit-less-often", ALICE), T0 + 6 * MIN]], from);
    expect(run.state).toBe(from);
    expect(run.last).toEqual([
      { type: "offer-next-step", nextStepId: "commit-less-often", reason: "requested" },
    ]);
  });

  it("refuses someone who may not approve, before anything else", () => {
    const run = play([[next("commit-less-often", MALLORY), T0 + 6 * MIN]], ineffective());
    expect(of(run.last, "post-ephemeral")[0]?.notice).toMatchObject({
      kind: "not-approver",
      table: "db.events",
    });
    expect(of(run.last, "audit")[0]?.entry).toMatchObject({
      action: "propose",
      stepId: "commit-less-often",
      outcome: "refused",
      detail: "refused: not-approver",
    });
    expect(of(run.last, "offer-next-step")).toEqual([]);
  });

  it("ignores a press while a step is open, or for a step the playbook no longer offers", () => {
    const from = ineffective();
    const open = play([[propose("commit-less-often", manual), T0 + 6 * MIN]], from).state;
    const again = play([[next("commit-less-often", ALICE), T0 + 7 * MIN]], open);
    expect(of(again.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "already-proposed" });
    const other = play([[next("one-committer-per-table", ALICE), T0 + 7 * MIN]], open);
    expect(of(other.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "step-open" });
    const changed = play([[next("one-committer-per-table", ALICE), T0 + 7 * MIN]], from);
    expect(of(changed.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "offer-changed" });
    expect(of(changed.last, "audit")[0]?.entry).toMatchObject({ action: "propose", outcome: "ignored" });
  });

  it("says the walk has no open offer once it ended, rather than that it is over", () => {
    const stopped = play([[{ type: "stop", user: ALICE }, T0 + 6 * MIN]], ineffective()).state;
    const run = play([[next("commit-less-often", ALICE), T0 + 7 * MIN]], stopped);
    expect(of(run.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "step-open" });
    expect(of(run.last, "offer-next-step")).toEqual([]);
  });
});

describe("playbook state machine: failed applies and read-only checks", () => {
  const failed = (outcome: "conflict" | "unknown" | "error") =>
    play([
      [propose("raise-commit-retries", retries), T0],
      [approve("raise-commit-retries", ALICE), T0],
      [{ type: "apply-started", stepId: "raise-commit-retries" }, T0],
      [{ type: "apply-failed", stepId: "raise-commit-retries", outcome, message: "HTTP 409." }, T0],
    ]);

  it("after a conflict the old proposal cannot be approved; a fresh proposal replaces it", () => {
    const run = failed("conflict");
    expect(run.state.current?.phase).toBe("failed");
    const again = play([[approve("raise-commit-retries", BOB), T0 + MIN]], run.state);
    expect(of(again.effects, "apply-change")).toHaveLength(0);
    const refreshed = play([[propose("raise-commit-retries", retries), T0 + MIN]], run.state);
    expect(refreshed.state.current?.phase).toBe("proposed");
    expect(refreshed.state.history.at(-1)?.phase).toBe("superseded");
  });

  it("after an unknown outcome nothing is retried; the person is told to check first", () => {
    const again = play([[approve("raise-commit-retries", BOB), T0 + MIN]], failed("unknown").state);
    expect(of(again.effects, "apply-change")).toHaveLength(0);
    expect(of(again.last, "post-ephemeral")[0]?.notice).toEqual({ kind: "outcome-unknown" });
  });

  it("after a confirmed failure a new explicit approval applies again", () => {
    const again = play([[approve("raise-commit-retries", BOB), T0 + MIN]], failed("error").state);
    expect(of(again.effects, "apply-change")).toHaveLength(1);
    expect(again.state.current?.approvals.map((a) => a.user)).toEqual([BOB]);
  });

  it("a read-only check needs no approval and uses the playbook's own check count", () => {
    const run = play([[propose("verify-unknown-commit", manual), T0]]);
    expect(run.state.current).toMatchObject({ phase: "verifying", checksTotal: 3 });
    expect(of(run.effects, "post-proposal")).toEqual([
      { type: "post-proposal", stepId: "verify-unknown-commit" },
    ]);
    expect(of(run.effects, "schedule-check")).toMatchObject([{ delayMs: 0, checkIndex: 1 }]);
    const landed = play([[check("verify-unknown-commit", 1, true), T0]], run.state);
    expect(landed.state.status).toBe("resolved");
  });

  it("refuses buttons of an older proposal", () => {
    const run = play([
      [propose("raise-commit-retries", retries), T0],
      [approve("commit-less-often", ALICE), T0],
    ]);
    expect(run.state.current?.phase).toBe("proposed");
    expect(seen(of(run.last, "post-ephemeral")[0])).toMatch(/out of date/);
  });
});

describe("playbook state machine: effects are data", () => {
  it("no effect carries Slack formatting or mentions; the renderer words them", () => {
    const runs = [
      appliedRetries(),
      play([
        [propose("review-isolation-level", isolation, ALICE), T0],
        [approve("review-isolation-level", ALICE, ["correctness"]), T0],
        [approve("review-isolation-level", ALICE, ["correctness"]), T0],
        [approve("review-isolation-level", MALLORY, ["correctness"]), T0],
        [{ type: "skip", stepId: "review-isolation-level", user: BOB }, T0],
        [{ type: "stop", user: BOB }, T0],
        [approve("review-isolation-level", BOB), T0],
      ]),
    ];
    for (const run of runs) expect(JSON.stringify(run.effects)).not.toMatch(/<[@!#]|:[a-z_]+:/);
    const notes = runs
      .flatMap((r) => of(r.effects, "update-proposal"))
      .map((e) => renderProposalNote(e.note));
    expect(notes).toContain("Skipped by <@U0BOB>.");
    expect(notes).toContain(
      "Approved by <@U0ALICE> (1 of 2); someone other than <@U0ALICE> must approve too.",
    );
  });
});
