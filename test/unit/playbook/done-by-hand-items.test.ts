// "Done by hand" on a step whose work is an open item (removing the duplicate commit) marks that
// item done in the same press: the walk record, and so every surface rendered from it, stops
// counting it. Items of other work stay open until someone marks them done.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { historyOf } from "../../../src/core/history/record.js";
import { decide } from "../../../src/core/remediation/decide.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import type { RemediationRecord } from "../../../src/core/remediation/record.js";
import { readRemediationRecord } from "../../../src/core/remediation/record-format.js";
import type { Playbook } from "../../../src/core/remediation/schema.js";
import {
  type Effect,
  type MachineContext,
  type RemediationEvent,
  startWalk,
} from "../../../src/core/remediation/walk.js";
import { storyOf } from "../../../src/core/story/story.js";
import type { OpenItem } from "../../../src/core/verification/open-items.js";

const playbook = parsePlaybook(readFileSync("playbooks/commit-failures.yaml", "utf8"), "commit-failures.yaml")
  .playbook as Playbook;
const ALICE = "U0ALICE";
const BOB = "U0BOB";
const ctx: MachineContext = {
  playbook,
  policy: { table: "db.events", approvers: [ALICE, BOB], groupMembers: {} },
  followUp: { intervalSeconds: 60, checks: 3 },
};
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const MIN = 60_000;

const duplicate: OpenItem = {
  id: "remove-duplicate-42",
  kind: "todo",
  findingId: "commit-state-unknown",
  text: "Remove the duplicate commit: snapshot 42 holds the same data as snapshot 41",
  resolvedBy: "remove-duplicate-commit",
};
const confirm: OpenItem = {
  id: "confirm-recommit-43",
  kind: "todo",
  findingId: "commit-state-unknown",
  text: "Confirm the data of the commit that did not land was committed once",
  resolvedBy: "confirm-recommit",
};

function walkWith(items: OpenItem[]) {
  let record: RemediationRecord = {
    format: 2,
    incidentId: "inc-dup",
    table: "db.events",
    channel: "C1",
    walk: startWalk("db.events", playbook.id, T0),
    proposals: [],
    applySeq: 0,
    revertSeq: 0,
    openItems: items,
  };
  const effects: Effect[] = [];
  const step = (event: RemediationEvent, now: number) => {
    const decision = decide(record, event, now, ctx);
    record = decision.record;
    effects.push(...decision.effects);
  };
  return { step, record: () => record, effects };
}

const manual = { kind: "manual" as const, checklist: ["run the DELETE"] };

describe("done by hand on the step that is an open item's work", () => {
  it("marks the duplicate done by the person who pressed, in the same press", () => {
    const w = walkWith([duplicate, confirm]);
    w.step({ type: "propose", stepId: "remove-duplicate-commit", change: manual }, T0);
    expect(w.record().openItems?.every((i) => i.doneBy === undefined)).toBe(true);
    w.step({ type: "done-by-hand", stepId: "remove-duplicate-commit", user: ALICE }, T0 + 2 * MIN);

    const items = w.record().openItems ?? [];
    expect(items.find((i) => i.id === duplicate.id)).toMatchObject({ doneBy: ALICE, doneAtMs: T0 + 2 * MIN });
    // Other work is not this step's: it stays open.
    expect(items.find((i) => i.id === confirm.id)?.doneBy).toBeUndefined();
    // The audit (and so the postmortem's timeline) says the item was done, by whom.
    expect(w.effects).toContainEqual(
      expect.objectContaining({
        type: "audit",
        entry: expect.objectContaining({ action: "item-done", actor: ALICE, outcome: "ok" }),
      }),
    );
    // The stored form keeps which step resolves an item.
    expect(
      readRemediationRecord(JSON.parse(JSON.stringify(w.record())), "inc-dup").openItems?.[0],
    ).toMatchObject({
      resolvedBy: "remove-duplicate-commit",
      doneBy: ALICE,
    });
  });

  it("the story and the history count only what is still open", () => {
    const w = walkWith([duplicate]);
    w.step({ type: "propose", stepId: "remove-duplicate-commit", change: manual }, T0);
    w.step({ type: "done-by-hand", stepId: "remove-duplicate-commit", user: ALICE }, T0 + MIN);
    const record = w.record();
    const incident = {
      id: record.incidentId,
      table: record.table,
      channel: record.channel,
      state: "verifying" as const,
      openedAt: T0,
      updatedAt: T0 + MIN,
      alertCount: 1,
      diagnoses: 1,
      cardVersion: 1,
    };
    const story = storyOf({ incident, walk: record, playbook });
    expect(story.openItems.filter((i) => i.doneBy === undefined)).toEqual([]);
    const history = historyOf({
      incident: { id: record.incidentId, table: record.table, channel: record.channel, openedAt: T0 },
      state: "resolved",
      closedAtMs: T0 + 6 * MIN,
      walk: record,
    });
    expect(history.openItems).toEqual([]);
  });

  it("a press the walk refuses (a stale or finished step) marks nothing", () => {
    const w = walkWith([duplicate]);
    // No proposal of the step: the machine refuses the press.
    w.step({ type: "done-by-hand", stepId: "remove-duplicate-commit", user: BOB }, T0);
    expect(w.record().openItems?.[0]?.doneBy).toBeUndefined();
  });

  it("done by hand on confirming a re-commit marks that item done and leaves the duplicate open", () => {
    const w = walkWith([duplicate, confirm]);
    w.step({ type: "propose", stepId: "confirm-recommit", change: manual }, T0);
    w.step({ type: "done-by-hand", stepId: "confirm-recommit", user: BOB }, T0 + MIN);
    const items = w.record().openItems ?? [];
    expect(items.find((i) => i.id === confirm.id)).toMatchObject({ doneBy: BOB, doneAtMs: T0 + MIN });
    expect(items.find((i) => i.id === duplicate.id)?.doneBy).toBeUndefined();
  });

  it("done by hand on another step leaves the duplicate open", () => {
    const w = walkWith([duplicate]);
    w.step({ type: "propose", stepId: "idempotent-restart", change: manual }, T0);
    w.step({ type: "done-by-hand", stepId: "idempotent-restart", user: ALICE }, T0 + MIN);
    expect(w.record().openItems?.[0]?.doneBy).toBeUndefined();
  });
});
