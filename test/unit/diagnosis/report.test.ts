// The verdict and next-step priorities, the concrete changes, the window anchoring, and the
// report as a whole (ReportSchema-valid, ordered, honest about unavailable sources).

import { describe, expect, it } from "vitest";
import { renderReportText } from "../../../src/adapters/render/report.js";
import { slackWhen } from "../../../src/adapters/render/times.js";
import { renderDiagnosis } from "../../../src/adapters/slack/render/diagnosis.js";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import { buildContext } from "../../../src/core/diagnosis/context.js";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import { hotPartitionFilter } from "../../../src/core/diagnosis/next-step.js";
import { pickVerdict, VERDICT_PRIORITY } from "../../../src/core/diagnosis/verdict.js";
import type { Snapshot } from "../../../src/core/evidence/model.js";
import { type FindingId, STEP_IDS, TRIAGE_IDS } from "../../../src/core/ids.js";
import { proposeChange } from "../../../src/core/remediation/change.js";
import { chooseStep } from "../../../src/core/remediation/choose.js";
import { type PropertyChange, ReportSchema } from "../../../src/core/report/schema.js";
import { storyOf } from "../../../src/core/story/story.js";
import {
  BASE_LOCATION_MESSAGE,
  COMMIT_FAILED,
  CONNECT_TERMINATED_TRACE,
  CONNECTOR,
  connect,
  evidence,
  flinkJob,
  HEALTHY_BASELINES,
  HOUR,
  JOB,
  JOB2,
  MIN,
  NOW,
  SPARK_APP,
  STATE_UNKNOWN,
  series,
  snap,
  table,
  UNKNOWN_MESSAGE,
} from "../../support/evidence-builders.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const ids = (...list: FindingId[]) => list.map((id) => ({ id }));
const stalled = () => series(6 * HOUR, 55 * MIN, 5 * MIN);
const conflictAt = (ago: number) => [{ ago, name: COMMIT_FAILED, message: BASE_LOCATION_MESSAGE }];

/** The retry step's property changes, from the playbook definition every path uses. */
function retryChanges(properties: Record<string, string>): PropertyChange[] {
  const step = PLAYBOOKS.flatMap((p) => p.steps).find((s) => s.id === "raise-commit-retries")!;
  const change = proposeChange(step, { table: "db.events", writer: "flink", properties });
  return change?.kind === "table-properties" ? change.changes : [];
}

describe("verdict priority", () => {
  it("lists every triage id once", () => {
    expect([...VERDICT_PRIORITY].sort()).toEqual([...TRIAGE_IDS].sort());
  });

  it.each([
    [["commit-conflict", "commit-state-unknown", "commit-failing"], "commit-state-unknown"],
    [["commit-failing", "connect-coordinator-stopped"], "connect-coordinator-stopped"],
    [["commit-conflict", "commit-not-attempted"], "commit-not-attempted"],
    [["commit-conflict", "validation-conflict"], "validation-conflict"],
    [["commit-failing", "commit-conflict", "rewrite-in-window"], "commit-conflict"],
    [["commit-failing", "competing-appends"], "commit-failing"],
    [["healthy", "commit-duration-growing"], "healthy"],
  ] as Array<[FindingId[], string]>)("%j -> %s", (fired, verdict) => {
    expect(pickVerdict(ids(...fired))).toBe(verdict);
  });

  it("falls back to commit-failing only when the writer is known to be stale", () => {
    expect(pickVerdict(ids("rewrite-in-window"), true)).toBe("commit-failing");
    expect(pickVerdict([], null)).toBe("healthy");
  });
});

describe("next-step choice from the playbooks (RUNBOOK §4 order)", () => {
  const f = (id: FindingId, severity: "critical" | "warning" | "info" = "warning") => ({ id, severity });
  it("offers each runbook step once, in the runbook's order", () => {
    const steps = PLAYBOOKS.flatMap((p) => p.steps.map((s) => s.id));
    expect(new Set(steps).size).toBe(steps.length);
    expect(steps).toEqual([
      "verify-unknown-commit",
      "remove-duplicate-commit",
      "confirm-recommit",
      "renew-catalog-credential",
      "check-catalog-service",
      "raise-writer-memory",
      "fix-writer-error",
      "restart-connect-coordinator",
      "keep-writer-last-snapshot",
      "check-checkpoints",
      "one-committer-per-table",
      "apply-schema-first",
      "move-compaction-off-hot-partitions",
      "review-isolation-level",
      "raise-commit-retries",
      "commit-less-often",
      "idempotent-restart",
    ]);
    for (const step of steps) expect(STEP_IDS).toContain(step);
  });

  it.each([
    [["commit-state-unknown", "rewrite-in-window", "connect-coordinator-stopped"], "verify-unknown-commit"],
    [["commit-not-attempted", "frequent-commits"], "check-checkpoints"],
    [["connect-coordinator-stopped", "competing-appends"], "restart-connect-coordinator"],
    [["validation-conflict", "rewrite-in-window"], "move-compaction-off-hot-partitions"],
    [["validation-conflict", "row-level-in-window"], "review-isolation-level"],
    [["rewrite-in-window", "multiple-flink-jobs", "default-retry-budget"], "one-committer-per-table"],
    [["multiple-flink-jobs", "writer-last-snapshot-at-risk"], "one-committer-per-table"],
    [["writer-last-snapshot-at-risk", "competing-appends"], "raise-commit-retries"],
    [["writer-last-snapshot-at-risk", "commit-conflict"], "keep-writer-last-snapshot"],
    [["default-retry-budget", "frequent-commits"], "raise-commit-retries"],
    [["frequent-commits", "schema-churn"], "apply-schema-first"],
    [["schema-churn", "commit-conflict"], "apply-schema-first"],
    [["commit-conflict"], "idempotent-restart"],
    [["commit-failing"], "idempotent-restart"],
    [["committers-inside-job", "competing-appends"], "one-committer-per-table"],
    [["healthy", "commit-duration-growing"], null],
  ] as Array<[FindingId[], string | null]>)("%j -> %s", (fired, step) => {
    expect(
      chooseStep(
        PLAYBOOKS,
        fired.map((id) => f(id)),
      )?.step.id ?? null,
    ).toBe(step);
  });

  it("an unknown commit answered with a duplicate selects removing it; answered otherwise, the restart", () => {
    const duplicate = { ...f("commit-state-unknown"), answered: true, answer: "duplicate" as const };
    expect(chooseStep(PLAYBOOKS, [duplicate])?.step.id).toBe("remove-duplicate-commit");
    const landed = { ...f("commit-state-unknown"), answered: true };
    expect(chooseStep(PLAYBOOKS, [landed])?.step.id).toBe("idempotent-restart");
    // It did not land and the writer committed since: its data is to confirm, not a restart.
    const recommitted = { ...f("commit-state-unknown"), answered: true, answer: "recommitted" as const };
    expect(chooseStep(PLAYBOOKS, [recommitted])?.step.id).toBe("confirm-recommit");
    // Not yet answered: find out whether it landed first.
    expect(chooseStep(PLAYBOOKS, [f("commit-state-unknown")])?.step.id).toBe("verify-unknown-commit");
  });

  it("a writer that cannot restore its snapshot comes before its failing checkpoints; a settings risk after", () => {
    const restore = [f("commit-not-attempted", "critical"), f("writer-last-snapshot-at-risk", "critical")];
    expect(chooseStep(PLAYBOOKS, restore)?.step.id).toBe("keep-writer-last-snapshot");
    const risk = [f("commit-not-attempted", "critical"), f("writer-last-snapshot-at-risk", "warning")];
    expect(chooseStep(PLAYBOOKS, risk)?.step.id).toBe("check-checkpoints");
    const afterLessOften = [f("frequent-commits"), f("writer-last-snapshot-at-risk", "warning")];
    expect(chooseStep(PLAYBOOKS, afterLessOften)?.step.id).toBe("commit-less-often");
  });

  it("follows an edited playbook: moving a step first changes the proposal", () => {
    const edited = PLAYBOOKS.map((p) => ({
      ...p,
      steps: [
        ...p.steps.filter((s) => s.id === "raise-commit-retries"),
        ...p.steps.filter((s) => s.id !== "raise-commit-retries"),
      ],
    }));
    const fired = [f("rewrite-in-window"), f("default-retry-budget")];
    expect(chooseStep(PLAYBOOKS, fired)?.step.id).toBe("move-compaction-off-hot-partitions");
    expect(chooseStep(edited, fired)?.step.id).toBe("raise-commit-retries");
  });

  it("raises retries to 10 and the first wait to 1 s, within the total timeout", () => {
    expect(retryChanges({})).toEqual([
      { key: "commit.retry.num-retries", current: null, proposed: "10" },
      { key: "commit.retry.min-wait-ms", current: null, proposed: "1000" },
    ]);
    const tight = retryChanges({
      "commit.retry.num-retries": "4",
      "commit.retry.total-timeout-ms": "300000",
    });
    expect(tight).toContainEqual({ key: "commit.retry.max-wait-ms", current: null, proposed: "30000" });
    expect(retryChanges({ "commit.retry.num-retries": "12", "commit.retry.min-wait-ms": "2000" })).toEqual([
      { key: "commit.retry.num-retries", current: "12", proposed: "24" },
    ]);
  });

  it("spares the writer's hot partitions from the partition spec", () => {
    expect(hotPartitionFilter(["event_date"])).toEqual({
      column: "event_date",
      bound: { kind: "days-ago", days: 0 },
    });
    expect(hotPartitionFilter(["region", "event_ts_hour"])).toEqual({
      column: "event_ts",
      bound: { kind: "hours-ago", hours: 2 },
    });
    expect(hotPartitionFilter(["customer_id_bucket"])).toBeNull();
  });
});

describe("diagnose", () => {
  it.each(HEALTHY_BASELINES)("a %s is healthy with no next step", (_name, build) => {
    const report = diagnose(build(), NOW, { playbooks: PLAYBOOKS });
    expect(ReportSchema.parse(report).verdict).toBe("healthy");
    expect(report.nextStep).toBeNull();
    expect(report.generatedAt).toBe(new Date(NOW).toISOString());
  });

  it("compaction in the window: conflict verdict, findings ordered, the exact rewrite statement", () => {
    const ev = evidence({
      table: table({
        snapshots: [...stalled(), snap(40 * MIN, { op: "replace", by: { spark: SPARK_APP } })],
      }),
      flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
    });
    const report = ReportSchema.parse(diagnose(ev, NOW, { catalogName: "prod", playbooks: PLAYBOOKS }));
    expect(report.verdict).toBe("commit-conflict");
    expect(report.findings[0]!.id).toBe("commit-conflict");
    expect(report.findings.map((f) => f.id)).toContain("rewrite-in-window");
    expect(report.nextStep?.id).toBe("move-compaction-off-hot-partitions");
    expect(report.nextStep?.automatic).toBe(false);
    const change = report.nextStep!.change;
    expect(change.kind).toBe("manual");
    if (change.kind === "manual") {
      expect(change.statement).toContain("CALL prod.system.rewrite_data_files(");
      expect(change.statement).toContain("where => 'event_date < current_date()'");
      expect(change.statement).toContain("'partial-progress.enabled', 'true'");
    }
  });

  it("default retries with other committers: a table-properties change from current to proposed", () => {
    const ev = evidence({
      table: table({
        snapshots: [...stalled(), ...series(50 * MIN, 20 * MIN, 10 * MIN, { by: { spark: SPARK_APP } })],
      }),
      flink: flinkJob({ exceptions: conflictAt(10 * MIN) }),
    });
    const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    expect(report.nextStep?.id).toBe("raise-commit-retries");
    expect(report.nextStep?.change).toEqual({
      kind: "table-properties",
      table: "db.events",
      changes: [
        { key: "commit.retry.num-retries", current: null, proposed: "10" },
        { key: "commit.retry.min-wait-ms", current: null, proposed: "1000" },
      ],
    });
    expect(report.nextStep?.automatic).toBe(true);
  });

  it("coordinator stopped: restart only the failed tasks", () => {
    const ev = evidence({
      table: table({ snapshots: series(6 * HOUR, 50 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }) }),
      connect: connect({ taskState: "FAILED", trace: CONNECT_TERMINATED_TRACE, sinkVersion: "1.12.0" }),
    });
    const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    expect(report.verdict).toBe("connect-coordinator-stopped");
    expect(report.nextStep?.change).toEqual({
      kind: "connector-restart",
      connector: CONNECTOR,
      includeTasks: true,
      onlyFailed: true,
    });
  });

  it("unknown commit state outranks a conflict and proposes the snapshots check", () => {
    const ev = evidence({
      table: table({
        snapshots: [...stalled(), snap(30 * MIN, { op: "replace", by: { spark: SPARK_APP } })],
      }),
      flink: flinkJob({
        exceptions: [
          { ago: 20 * MIN, name: COMMIT_FAILED, message: BASE_LOCATION_MESSAGE },
          { ago: 10 * MIN, name: STATE_UNKNOWN, message: UNKNOWN_MESSAGE },
        ],
      }),
    });
    const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    expect(report.verdict).toBe("commit-state-unknown");
    expect(report.nextStep?.id).toBe("verify-unknown-commit");
    const change = report.nextStep!.change;
    expect(change.kind === "read-only-check" && change.statement).toContain(
      "FROM spark_catalog.db.events.snapshots",
    );
  });

  it("reports unavailable sources with their error and stays silent on them", () => {
    const ev = evidence({
      table: table({ snapshots: stalled() }),
      flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      unavailable: ["flink"],
    });
    const report = ReportSchema.parse(diagnose(ev, NOW, { playbooks: PLAYBOOKS }));
    expect(report.sources.flink).toEqual({ status: "unavailable", error: "flink timed out after 5 s" });
    expect(report.sources.connect.status).toBe("not-configured");
    expect(report.findings.some((f) => f.evidence.some((e) => e.source === "flink"))).toBe(false);
    expect(report.verdict).toBe("commit-failing");
  });

  it("anchors the window on the writer's last commit and the failure, not on now", () => {
    const ev = evidence({
      table: table({ snapshots: stalled() }),
      flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
    });
    const early = buildContext(ev, NOW).window!;
    const late = buildContext(ev, NOW + 6 * HOUR).window!;
    expect(early.startMs).toBe(NOW - 55 * MIN);
    expect(early.failureMs).toBe(NOW - 5 * MIN);
    expect(late.startMs).toBe(early.startMs);
    expect(late.endMs).toBe(early.endMs);
    const derived = buildContext(evidence({ table: table({ snapshots: stalled() }), flink: flinkJob() }), NOW)
      .window!;
    expect(derived.failureSource).toBe("expected-commit");
    expect(derived.failureMs).toBe(NOW - 50 * MIN);
  });

  it("handles 100,000 snapshots without copying the history", () => {
    const snapshots: Snapshot[] = [];
    const start = NOW - 100_000 * MIN;
    for (let i = 0; i < 100_000; i++) {
      const at = start + i * MIN;
      const byJob = i % 5 !== 0;
      snapshots.push({
        snapshotId: String(1_000_000_000_000n + BigInt(i)),
        timestampMs: at,
        operation: byJob ? "append" : "replace",
        summary: byJob
          ? { "flink.job-id": i % 2 === 0 && i < 99_970 ? JOB : JOB2, "added-data-files": "4" }
          : { "spark.app.id": SPARK_APP },
      });
    }
    const tbl = table({ snapshots: [] });
    tbl.snapshots = snapshots;
    const report = ReportSchema.parse(
      diagnose(evidence({ table: tbl, flink: flinkJob({ exceptions: conflictAt(0) }) }), NOW, {
        playbooks: PLAYBOOKS,
      }),
    );
    expect(report.findings.map((f) => f.id)).toEqual(
      expect.arrayContaining(["commit-conflict", "multiple-flink-jobs", "rewrite-in-window"]),
    );
    expect(tbl.snapshots).toBe(snapshots);
  });

  it("reads every writer: a failing second job decides the verdict, the card counts from its last commit", () => {
    const failingLast = 40 * MIN;
    const ev = evidence({
      table: table({
        snapshots: [
          ...series(6 * HOUR, 2 * MIN, 5 * MIN),
          ...series(6 * HOUR - MIN, failingLast, 5 * MIN, { by: { flink: JOB2 } }),
        ],
      }),
      flink: flinkJob(),
    });
    const failing = flinkJob({ jobId: JOB2, exceptions: conflictAt(4 * MIN) });
    ev.flink!.writers = [ev.flink!.writer!, failing];
    ev.flink!.jobs.push(failing.job);
    const alone = diagnose({ ...ev, flink: { ...ev.flink!, writers: undefined } }, NOW, {
      playbooks: PLAYBOOKS,
    });
    expect(alone.verdict).not.toBe("commit-conflict");
    const report = ReportSchema.parse(diagnose(ev, NOW, { playbooks: PLAYBOOKS }));
    expect(report.verdict).toBe("commit-conflict");
    expect(report.findings.map((f) => f.id)).toContain("multiple-flink-jobs");
    expect(report.nextStep?.id).toBe("one-committer-per-table");
    expect(report.nextStep?.summary).toContain(JOB2);
    const card = renderStatusCard(
      storyOf({
        incident: {
          id: "i1",
          table: "db.events",
          state: "awaiting-approval",
          channel: "C1",
          openedAt: NOW - 5 * MIN,
          updatedAt: NOW,
          alertCount: 1,
          diagnoses: 1,
          cardVersion: 1,
        },
        report,
      }),
      NOW,
    );
    const lastOfFailing = Math.max(
      ...ev.catalog!.snapshots.filter((s) => s.summary["flink.job-id"] === JOB2).map((s) => s.timestampMs),
    );
    expect(JSON.stringify(card.blocks)).toContain(`no good commit since ${slackWhen(lastOfFailing, NOW)}`);
  });

  it("verify-unknown-commit is the bot's own read-only check: automatic, and its change kind says so", () => {
    const ev = evidence({
      table: table({ snapshots: stalled() }),
      flink: flinkJob({ exceptions: [{ ago: 10 * MIN, name: STATE_UNKNOWN, message: UNKNOWN_MESSAGE }] }),
    });
    const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    expect(report.nextStep?.id).toBe("verify-unknown-commit");
    expect(report.nextStep?.change.kind).toBe("read-only-check");
    expect(report.nextStep?.automatic).toBe(true);
    const text = renderReportText(report, { color: false });
    expect(text).toContain("The bot checks this itself (nothing changes)");
    expect(text).not.toContain("Run this yourself");
    const slack = JSON.stringify(renderDiagnosis(report));
    expect(slack).not.toContain("a person makes this change");
  });

  it("a manual step is never automatic", () => {
    const ev = evidence({
      table: table({
        snapshots: [...stalled(), snap(40 * MIN, { op: "replace", by: { spark: SPARK_APP } })],
      }),
      flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
    });
    const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    expect(report.nextStep?.change.kind).toBe("manual");
    expect(report.nextStep?.automatic).toBe(false);
  });

  it("reads every connector: a failed second connector decides the verdict", () => {
    const ev = evidence({
      table: table({
        snapshots: [
          ...series(6 * HOUR, 2 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }),
          ...series(6 * HOUR, 50 * MIN, 5 * MIN, { by: { connect: "events-sink-eu" } }),
        ],
      }),
      connect: connect(),
    });
    const failed = connect({
      name: "events-sink-eu",
      taskState: "FAILED",
      trace: CONNECT_TERMINATED_TRACE,
      sinkVersion: "1.12.0",
    });
    const alone = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
    ev.connect = { ...ev.connect!, others: [failed] };
    const report = ReportSchema.parse(diagnose(ev, NOW, { playbooks: PLAYBOOKS }));
    expect(alone.verdict).toBe("healthy");
    expect(report.verdict).toBe("connect-coordinator-stopped");
    expect(report.nextStep?.change).toMatchObject({ kind: "connector-restart", connector: "events-sink-eu" });
  });
});
