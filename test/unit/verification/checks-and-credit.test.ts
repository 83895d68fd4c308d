// A follow-up check never claims what it could not see, and recovery is credited only where it is
// due (issue 30): the facts the check, the walk machine and the walk record keep, and the words the
// thread renders from them.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import { renderVerification } from "../../../src/adapters/slack/render/verification.js";
import { renderProposalNote } from "../../../src/adapters/slack/render/walk-notice.js";
import type { Evidence, Snapshot } from "../../../src/core/evidence/model.js";
import { historyOf } from "../../../src/core/history/record.js";
import type { StepId } from "../../../src/core/ids.js";
import { decide } from "../../../src/core/remediation/decide.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import { transition } from "../../../src/core/remediation/machine.js";
import type { RemediationRecord } from "../../../src/core/remediation/record.js";
import { readRemediationRecord } from "../../../src/core/remediation/record-format.js";
import type { Playbook } from "../../../src/core/remediation/schema.js";
import {
  type CheckResult,
  checkOutcome,
  type Effect,
  type MachineContext,
  type RemediationEvent,
  startWalk,
  type WalkState,
} from "../../../src/core/remediation/walk.js";
import type { Change } from "../../../src/core/report/schema.js";
import { storyOf } from "../../../src/core/story/story.js";
import { evaluateRecovery, unreadableCheck } from "../../../src/core/verification/check.js";
import { changeTimeOf, recoveryAfterMs } from "../../../src/core/verification/recovery.js";
import { recoveredAfterWords } from "../../../src/core/words/recovery.js";
import type { VerificationView } from "../../../src/services/view-models.js";

const playbook = parsePlaybook(readFileSync("playbooks/commit-failures.yaml", "utf8"), "commit-failures.yaml")
  .playbook as Playbook;
const ALICE = "U0ALICE";
const ctx: MachineContext = {
  playbook,
  policy: { table: "db.events", approvers: [ALICE], groupMembers: {} },
  followUp: { intervalSeconds: 60, checks: 3 },
};
const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const MIN = 60_000;
const JOB = "8e0a2c4e6b8d4f1a3c5e7a9b1d3f5a72";
const CATALOG_DOWN = "Iceberg REST catalog answered HTTP 503 to GET /v1/config";

const readOnly: Change = { kind: "read-only-check", statement: "SELECT 1", language: "sql", checklist: [] };
const restart: Change = { kind: "manual", checklist: ["restart it"] };

function play(events: [RemediationEvent, number][], from?: WalkState) {
  let state = from ?? startWalk("db.events", playbook.id, T0);
  const effects: Effect[] = [];
  for (const [event, now] of events) {
    const result = transition(state, event, now, ctx);
    state = result.state;
    effects.push(...result.effects);
  }
  return { state, effects };
}

const check = (stepId: StepId, checkIndex: number, result: CheckResult): RemediationEvent => ({
  type: "check",
  stepId,
  checkIndex,
  result,
});
const unseen = (): CheckResult => ({
  recovered: false,
  outcome: "could-not-check",
  detail: `cannot see the table's snapshots (catalog: ${CATALOG_DOWN})`,
  unseen: [{ source: "catalog", reason: CATALOG_DOWN }],
});

const snap = (id: string, atMs: number): Snapshot => ({
  snapshotId: id,
  timestampMs: atMs,
  operation: "append",
  summary: { "flink.job-id": JOB },
});

function evidence(snapshots: Snapshot[] | "down"): Evidence {
  const ok = { status: "ok" } as const;
  return {
    table: { namespace: ["db"], name: "events" },
    collectedAtMs: T0 + 30 * MIN,
    sources: {
      catalog: snapshots === "down" ? { status: "unavailable", error: CATALOG_DOWN } : ok,
      flink: ok,
      connect: { status: "not-configured" },
      prometheus: { status: "not-configured" },
    },
    ...(snapshots === "down"
      ? {}
      : {
          catalog: {
            ref: { namespace: ["db"], name: "events" },
            uuid: "u",
            formatVersion: 2,
            location: "s3://lake/db/events",
            lastUpdatedMs: T0,
            snapshots,
            snapshotLog: [],
            metadataLog: [],
            refs: {},
            properties: {},
            currentSchemaId: 0,
            schemas: [],
            partitionFieldCount: 0,
            partitionFields: [],
            sortOrderFieldCount: 0,
          },
        }),
    flink: {
      jobs: [],
      writer: {
        job: { jobId: JOB, name: "events-ingest", state: "RUNNING", startTimeMs: 0 },
        vertices: [],
        exceptions: [],
        backpressure: [],
        checkpointConfig: { intervalMs: 5 * MIN },
        committer: {
          vertexId: "v",
          operatorName: "IcebergFilesCommitter",
          metricTable: "iceberg_db_events",
          elapsedSecondsSinceLastSuccessfulCommit: 60,
        },
      },
    },
  } as Evidence;
}

const flink = { kind: "flink", jobId: JOB, name: "events-ingest" } as const;

/** The card as it shows a resolved walk: the story of the walk, in the card's words. */
function resolvedCard(record: RemediationRecord) {
  const incident = {
    id: record.incidentId,
    table: record.table,
    channel: record.channel,
    state: "resolved" as const,
    openedAt: T0,
    updatedAt: T0 + 6 * MIN,
    resolvedAt: T0 + 6 * MIN,
    alertCount: 1,
    diagnoses: 0,
    cardVersion: 0,
  };
  const card = renderStatusCard(storyOf({ incident, walk: record }), T0 + 6 * MIN);
  return JSON.stringify(card.blocks);
}

describe("a check never claims what it could not see", () => {
  it("counts unreadable snapshots as could-not-check, naming the source and its error", () => {
    const result = evaluateRecovery({ changeAtMs: T0, writer: flink }, evidence("down"), T0 + MIN);
    expect(result).toMatchObject({
      recovered: false,
      outcome: "could-not-check",
      unseen: [{ source: "catalog", reason: CATALOG_DOWN }],
    });
    // A normal commit gauge beside unreadable snapshots is still no answer.
    expect(result.detail).toMatch(/cannot see the table's snapshots/);
    const missing = evaluateRecovery({ changeAtMs: T0, writer: flink }, evidence([]), T0 + MIN);
    expect(missing.outcome).toBe("not-yet");
    expect(unreadableCheck("table", "timed out")).toMatchObject({
      outcome: "could-not-check",
      unseen: [{ source: "table", reason: "timed out" }],
    });
  });

  it("a read-only check that could not look looks again, and offers no step that changes anything", () => {
    const proposed = play([[{ type: "propose", stepId: "verify-unknown-commit", change: readOnly }, T0]]);
    const first = play([[check("verify-unknown-commit", 1, unseen()), T0]], proposed.state);
    // Not answered at its first look: the next check is scheduled.
    expect(first.state.current).toMatchObject({ phase: "verifying", checksTotal: 3 });
    expect(first.effects.filter((e) => e.type === "schedule-check")).toHaveLength(1);
    const last = play(
      [
        [check("verify-unknown-commit", 2, unseen()), T0 + MIN],
        [check("verify-unknown-commit", 3, unseen()), T0 + 2 * MIN],
      ],
      first.state,
    );
    expect(last.effects.some((e) => e.type === "offer-next-step")).toBe(false);
    expect(last.state.status).toBe("stalled");
    const ended = last.effects.find((e) => e.type === "walk-ended");
    expect(ended).toMatchObject({
      outcome: "stalled",
      unseen: [{ source: "catalog", reason: CATALOG_DOWN }],
    });
    const run = last.state.history.at(-1);
    expect(run?.checks.map(checkOutcome)).toEqual(["could-not-check", "could-not-check", "could-not-check"]);
    expect(run?.checks.at(-1)?.unseen).toEqual([{ source: "catalog", reason: CATALOG_DOWN }]);
    const note = last.effects.find((e) => e.type === "update-proposal" && e.note.kind === "could-not-check");
    const words = note?.type === "update-proposal" ? renderProposalNote(note.note) : "";
    expect(words).toContain(
      `Could not check: the bot could not read the table's snapshots (${CATALOG_DOWN})`,
    );
    expect(words).not.toMatch(/has not committed|next step follows/i);
  });

  it("a check record written before outcomes reads by its recovered flag", () => {
    expect(checkOutcome({ recovered: true })).toBe("recovered");
    expect(checkOutcome({ recovered: false })).toBe("not-yet");
  });

  it("the verification message says what it could not read, never 'no new snapshot'", () => {
    const view: VerificationView = {
      incidentId: "inc-1",
      proposalId: "p1",
      stepId: "verify-unknown-commit",
      table: "db.events",
      writer: { kind: "flink-job", id: JOB, name: "events-ingest" },
      check: { index: 3, total: 3 },
      readOnly: true,
      latest: {
        newSnapshotId: null,
        elapsedSecondsSinceLastSuccessfulCommit: 60,
        unseen: [{ source: "catalog", reason: CATALOG_DOWN }],
      },
      outcome: { kind: "could-not-check" },
    };
    const text = JSON.stringify(renderVerification(view));
    expect(text).toContain(`could not read the table's snapshots (${CATALOG_DOWN})`);
    expect(text).not.toMatch(/no new snapshot|has not committed|No recovery|Next step/);
    // Nor a commit age from the metrics, which would say the writer committed a minute ago.
    expect(text).not.toContain("elapsedSecondsSinceLastSuccessfulCommit");
  });
});

describe("credit only where it is due", () => {
  const changeAtMs = T0 + 40 * MIN;

  it("fixed: the writer had stopped committing when the change was made and commits after it", () => {
    const result = evaluateRecovery(
      { changeAtMs, writer: { ...flink, failedAtMs: T0 } },
      evidence([snap("1", T0 - 5 * MIN), snap("2", changeAtMs + MIN)]),
      changeAtMs + 2 * MIN,
    );
    expect(result).toMatchObject({ recovered: true, outcome: "recovered", credit: "fixed" });
  });

  it("already-flowing: the writer committed after its failure and at its pace up to the change", () => {
    const result = evaluateRecovery(
      { changeAtMs, writer: { ...flink, failedAtMs: T0 } },
      evidence([snap("1", T0 + 30 * MIN), snap("2", T0 + 35 * MIN), snap("3", changeAtMs + 4 * MIN)]),
      changeAtMs + 5 * MIN,
    );
    expect(result).toMatchObject({ recovered: true, credit: "already-flowing" });
    // A failure time estimated after the change (the next commit due) does not hide the flow.
    const later = evaluateRecovery(
      { changeAtMs, writer: { ...flink, failedAtMs: changeAtMs + 4 * MIN } },
      evidence([snap("1", changeAtMs - MIN), snap("2", changeAtMs + 4 * MIN)]),
      changeAtMs + 5 * MIN,
    );
    expect(later.credit).toBe("already-flowing");
  });

  it("done by hand counts from the proposal, so a commit made just before the press is the recovery", () => {
    const run = play([
      [{ type: "propose", stepId: "idempotent-restart", change: restart }, T0],
      [{ type: "done-by-hand", stepId: "idempotent-restart", user: ALICE }, T0 + 10 * MIN],
    ]);
    const cur = run.state.current!;
    expect(cur.appliedAtMs).toBe(T0 + 10 * MIN);
    expect(changeTimeOf(cur)).toBe(T0);
    // The writer recovered 20 ms before the press: the check counts that commit.
    const result = evaluateRecovery(
      { changeAtMs: changeTimeOf(cur), writer: flink },
      evidence([snap("9", T0 + 10 * MIN - 20)]),
      T0 + 11 * MIN,
    );
    expect(result.firstNewSnapshot?.id).toBe("9");
    expect(recoveryAfterMs({ atMs: T0 + 10 * MIN - 20, changeAtMs: changeTimeOf(cur) })).toBe(10 * MIN - 20);
  });

  it("the walk record keeps the recovery and its credit; the card and history do not credit the step", () => {
    const base: RemediationRecord = {
      format: 2,
      incidentId: "inc-1",
      table: "db.events",
      channel: "C1",
      walk: startWalk("db.events", playbook.id, T0),
      proposals: [],
      applySeq: 0,
      revertSeq: 0,
    };
    let record = base;
    const step = (event: RemediationEvent, now: number, extra: Record<string, unknown> = {}) => {
      record = decide(record, event, now, { ...ctx, ...extra }).record;
    };
    step({ type: "propose", stepId: "idempotent-restart", change: restart }, T0);
    step({ type: "done-by-hand", stepId: "idempotent-restart", user: ALICE }, T0 + MIN);
    step(
      check("idempotent-restart", 1, { recovered: true, outcome: "recovered", detail: "snapshot 3" }),
      T0 + 5 * MIN,
      {
        recoveredAtMs: T0 + 4 * MIN,
        credit: "already-flowing",
      },
    );
    expect(record.recovery).toEqual({
      atMs: T0 + 4 * MIN,
      changeAtMs: T0,
      credit: "already-flowing",
      stepId: "idempotent-restart",
    });
    expect(record.recoveredAtMs).toBe(T0 + 4 * MIN);
    // The stored form reads it back.
    expect(readRemediationRecord(JSON.parse(JSON.stringify(record)), "inc-1").recovery?.credit).toBe(
      "already-flowing",
    );
    const card = resolvedCard(record);
    expect(card).toContain("*Commits were flowing:*");
    const history = historyOf({
      incident: { id: "inc-1", table: "db.events", channel: "C1", openedAt: T0 },
      state: "resolved",
      closedAtMs: T0 + 6 * MIN,
      walk: record,
    });
    expect(history.fixedBy).toBeUndefined();
    expect(history.steps[0]?.outcome).toBe("not-needed");
  });

  it("recovery minutes are one measure on the card and in the history", () => {
    let record: RemediationRecord = {
      format: 2,
      incidentId: "inc-2",
      table: "db.events",
      channel: "C1",
      walk: startWalk("db.events", playbook.id, T0),
      proposals: [],
      applySeq: 0,
      revertSeq: 0,
    };
    const step = (event: RemediationEvent, now: number, extra: Record<string, unknown> = {}) => {
      record = decide(record, event, now, { ...ctx, ...extra }).record;
    };
    step({ type: "propose", stepId: "idempotent-restart", change: restart }, T0);
    step({ type: "done-by-hand", stepId: "idempotent-restart", user: ALICE }, T0 + 3 * MIN);
    step(
      check("idempotent-restart", 1, { recovered: true, outcome: "recovered", detail: "snapshot 3" }),
      T0 + 4 * MIN,
      {
        recoveredAtMs: T0 + 3 * MIN - 20,
        credit: "fixed",
      },
    );
    const card = resolvedCard(record);
    const history = historyOf({
      incident: { id: "inc-2", table: "db.events", channel: "C1", openedAt: T0 },
      state: "resolved",
      closedAtMs: T0 + 6 * MIN,
      walk: record,
    });
    const measured = recoveryAfterMs(record.recovery!);
    expect(measured).toBe(3 * MIN - 20);
    expect(card).toContain(`commits resumed ${recoveredAfterWords(measured, true)}`);
    expect(history.steps[0]?.recoveredAfterMs).toBe(measured);
    expect(history.fixedBy).toBe("idempotent-restart");
  });
});
