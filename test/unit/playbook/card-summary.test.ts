// What the root card says about the walk: the decision waiting, offered as the proposal's own
// button, and a read-only check that answers at its first look (no "check 1 of 3" to wait through).
import { describe, expect, it } from "vitest";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import type { WalkRecord } from "../../../src/core/playbook/record.js";
import type { StepRun } from "../../../src/core/playbook/walk.js";
import { cardSummary } from "../../../src/services/remediation/views.js";

const NOW = Date.parse("2026-11-29T10:07:00Z");

function recordWith(current: Partial<StepRun> & Pick<StepRun, "stepId" | "phase" | "change">): WalkRecord {
  return {
    incidentId: "inc-1",
    table: "db.events",
    channel: "C0INC",
    walk: {
      table: "db.events",
      playbookId: "commit-failures",
      status: "active",
      startedAtMs: NOW - 60_000,
      current: {
        proposedAtMs: NOW - 60_000,
        approvals: [],
        checksDone: 0,
        checksTotal: 3,
        intervalMs: 60_000,
        checks: [],
        ...current,
      },
      history: [],
    },
    proposals: [{ id: "p-1", stepId: current.stepId, atMs: NOW - 60_000 }],
    applySeq: 0,
    revertSeq: 0,
  };
}

const titles = (id: string) => id.replaceAll("-", " ");

function card(summary: ReturnType<typeof cardSummary>) {
  return renderStatusCard({
    table: "db.events",
    state: summary!.state,
    openedAtMs: NOW - 60_000,
    nowMs: NOW,
    ...(summary!.nowLine ? { nowLine: summary!.nowLine } : {}),
    ...(summary!.step ? { step: summary!.step } : {}),
    ...(summary!.check ? { check: summary!.check } : {}),
    ...(summary!.decision
      ? {
          decision: {
            kind: summary!.decision.kind,
            action: { ...summary!.decision.action, stepId: "raise-commit-retries" as const },
          },
        }
      : {}),
  });
}

describe("the card's walk summary", () => {
  it("offers the waiting decision as the proposal's button: Apply when the bot can, else Done by hand", () => {
    const change = { kind: "table-properties" as const, table: "db.events", set: [] };
    const proposed = cardSummary(
      recordWith({ stepId: "raise-commit-retries", phase: "proposed", change: change as never }),
      titles,
      () => true,
    );
    expect(proposed?.decision).toEqual({
      kind: "apply",
      action: { incidentId: "inc-1", stepId: "raise-commit-retries", proposalId: "p-1" },
    });
    const blocks = card(proposed).blocks;
    expect(blocks).toContainEqual(
      expect.objectContaining({
        type: "actions",
        block_id: "card_decision",
        elements: [
          expect.objectContaining({
            action_id: "playbook_apply",
            text: { type: "plain_text", text: "Review and apply" },
          }),
        ],
      }),
    );
    const byHand = cardSummary(
      recordWith({
        stepId: "one-committer-per-table",
        phase: "proposed",
        change: { kind: "manual" } as never,
      }),
      titles,
      () => false,
    );
    expect(byHand?.decision?.kind).toBe("done");
    // Once applying, nothing waits on a person: no button.
    const applying = cardSummary(
      recordWith({ stepId: "raise-commit-retries", phase: "applying", change: change as never }),
      titles,
      () => true,
    );
    expect(applying?.decision).toBeUndefined();
  });

  it("a read-only check shows no count of checks and no button", () => {
    const check = { kind: "read-only-check" as const, language: "sql", statement: "SELECT 1", checklist: [] };
    const summary = cardSummary(
      recordWith({ stepId: "verify-unknown-commit", phase: "verifying", change: check as never }),
      titles,
      () => true,
    );
    expect(summary).toMatchObject({
      state: "verifying",
      nowLine: 'the bot is checking: "verify unknown commit"',
    });
    expect(summary?.check).toBeUndefined();
    const text = JSON.stringify(card(summary).blocks);
    expect(text).not.toMatch(/check \d+ of \d+/);
    expect(text).not.toContain("card_decision");
    const proposed = cardSummary(
      recordWith({ stepId: "verify-unknown-commit", phase: "proposed", change: check as never }),
      titles,
      () => true,
    );
    expect(proposed?.decision).toBeUndefined();
  });
});
