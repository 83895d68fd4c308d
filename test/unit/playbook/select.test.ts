import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FindingId } from "../../../src/core/ids.js";
import { renderTemplate } from "../../../src/core/remediation/change.js";
import { chooseStep } from "../../../src/core/remediation/choose.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import type { Playbook, Step } from "../../../src/core/remediation/schema.js";
import { buildNextStep } from "../../../src/core/remediation/select.js";
import { NextStepSchema } from "../../../src/core/report/schema.js";

const playbook = parsePlaybook(readFileSync("playbooks/commit-failures.yaml", "utf8"), "x")
  .playbook as Playbook;
const step = (id: string) => playbook.steps.find((s) => s.id === id) as Step;

describe("chooseStep", () => {
  const cases: [FindingId[], string | undefined][] = [
    [["commit-conflict", "rewrite-in-window"], "move-compaction-off-hot-partitions"],
    [["commit-state-unknown", "competing-appends"], "verify-unknown-commit"],
    [["commit-not-attempted"], "check-checkpoints"],
    [["commit-conflict", "default-retry-budget", "frequent-commits"], "raise-commit-retries"],
    [["connect-coordinator-stopped", "competing-appends"], "restart-connect-coordinator"],
    [["validation-conflict"], "review-isolation-level"],
    [["healthy"], undefined],
  ];
  for (const [findings, expected] of cases) {
    it(`${findings.join(" + ")} -> ${expected ?? "nothing"}`, () => {
      expect(
        chooseStep(
          [playbook],
          findings.map((id) => ({ id })),
        )?.step.id,
      ).toBe(expected);
    });
  }
});

describe("buildNextStep", () => {
  it("fills the current values and proposes a raise, never a lower value", () => {
    const next = buildNextStep(playbook, step("raise-commit-retries"), {
      table: "db.events",
      writer: "flink",
      properties: { "commit.retry.num-retries": "12" },
    });
    expect(NextStepSchema.parse(next)).toEqual(next);
    expect(next?.automatic).toBe(true);
    expect(next?.change).toEqual({
      kind: "table-properties",
      table: "db.events",
      changes: [
        { key: "commit.retry.num-retries", current: "12", proposed: "24" },
        { key: "commit.retry.min-wait-ms", current: null, proposed: "1000" },
      ],
    });
  });

  it("uses the connector config for a Connect writer and guidance for Flink", () => {
    const connect = buildNextStep(playbook, step("commit-less-often"), {
      table: "db.events",
      writer: "connect",
      connector: "events-sink",
      connectorConfig: { "iceberg.control.commit.interval-ms": "60000" },
    });
    expect(connect?.automatic).toBe(true);
    expect(connect?.change).toMatchObject({
      kind: "connector-config",
      connector: "events-sink",
      changes: [{ key: "iceberg.control.commit.interval-ms", current: "60000", proposed: "600000" }],
    });
    const flink = buildNextStep(playbook, step("commit-less-often"), { table: "db.events", writer: "flink" });
    expect(flink?.automatic).toBe(false);
    expect(flink?.change).toMatchObject({ kind: "manual", language: "yaml" });
  });

  it("renders the exact compaction call with the table's values and marks unknown ones", () => {
    const next = buildNextStep(playbook, step("move-compaction-off-hot-partitions"), {
      table: "analytics.web.events",
      writer: "flink",
      vars: { partitionColumn: "event_date" },
    });
    const change = next?.change;
    expect(change?.kind).toBe("manual");
    if (change?.kind !== "manual") return;
    expect(change.statement).toContain("table => 'analytics.web.events'");
    expect(change.statement).toContain("where => 'event_date < current_date()'");
    expect(change.statement).toContain("CALL <catalog>.system.rewrite_data_files(");
  });

  it("proposes restarting only failed Connect tasks", () => {
    const next = buildNextStep(playbook, step("restart-connect-coordinator"), {
      table: "db.events",
      writer: "connect",
      connector: "events-sink",
    });
    expect(next?.change).toEqual({
      kind: "connector-restart",
      connector: "events-sink",
      includeTasks: true,
      onlyFailed: true,
    });
    expect(
      buildNextStep(playbook, step("restart-connect-coordinator"), { table: "db.events", writer: "flink" }),
    ).toBe(undefined);
  });

  it("renderTemplate leaves missing values visible", () => {
    expect(renderTemplate("{table} on {catalog}", { table: "db.t" })).toBe("db.t on <catalog>");
  });
});
