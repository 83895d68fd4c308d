import { describe, expect, it } from "vitest";
import { type AutopilotFacts, decideAutopilot } from "../../../src/core/autopilot/decide.js";
import { type AutopilotConfig, AutopilotConfigSchema } from "../../../src/core/autopilot/policy.js";
import type { Report } from "../../../src/core/report/schema.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

// 2026-03-04 03:10 UTC.
const NOW = Date.UTC(2026, 2, 4, 3, 10);
const ok = { status: "ok" as const };

const report: Report = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: new Date(NOW).toISOString(),
  verdict: "commit-conflict",
  writer: { kind: "flink", id: "4f2a9c1e", name: "events-ingest" },
  findings: [
    {
      id: "competing-appends",
      severity: "critical",
      summary: "a Spark backfill appends between the writer's commits",
      evidence: [{ source: "catalog", detail: "snapshots", data: {} }],
    },
  ],
  nextStep: {
    id: "raise-commit-retries",
    playbook: "commit-failures",
    summary: "Give the writer a larger commit retry budget",
    change: {
      kind: "table-properties",
      table: "db.events",
      changes: [{ key: "commit.retry.num-retries", current: null, proposed: "10" }],
    },
    automatic: true,
  } as Report["nextStep"],
  sources: { catalog: ok, flink: ok, connect: ok, prometheus: ok },
};

const config = (over: Record<string, unknown> = {}, line: Record<string, unknown> = {}): AutopilotConfig =>
  AutopilotConfigSchema.parse({
    mode: "on",
    holdOffSeconds: 120,
    policies: [
      { name: "night", tables: [{ namespace: "db", name: "ev*" }], steps: ["raise-commit-retries"], ...line },
    ],
    ...over,
  });

const facts = (over: Partial<AutopilotFacts> = {}): AutopilotFacts => ({
  table: "db.events",
  report,
  stepId: "raise-commit-retries",
  inWalk: false,
  failedLastTime: false,
  handedBack: false,
  ...over,
});

const decide = (input: {
  config?: AutopilotConfig;
  facts?: AutopilotFacts;
  switchState?: "on" | "off" | "self-stopped";
  budgets?: { tableToday: number; fleetLastHour: number };
}) =>
  decideAutopilot({
    config: input.config ?? config(),
    switchState: input.switchState ?? "on",
    playbooks: PLAYBOOKS,
    facts: input.facts ?? facts(),
    nowMs: NOW,
    budgets: input.budgets ?? { tableToday: 0, fleetLastHour: 0 },
  });

describe("the autopilot's decision", () => {
  it("acts under the matching policy line, after the hold-off", () => {
    expect(decide({})).toEqual({ act: true, policy: "night", applyAtMs: NOW + 120_000, shadow: false });
  });

  it("shadow mode decides the same, marked shadow, even with the switch off", () => {
    expect(decide({ config: config({ mode: "shadow" }), switchState: "off" })).toMatchObject({
      act: true,
      shadow: true,
    });
  });

  it.each([
    ["off in BOT_CONFIG", { config: config({ mode: "off", policies: [] }) }, "off"],
    ["switched off", { switchState: "off" as const }, "switched-off"],
    ["stopped itself", { switchState: "self-stopped" as const }, "self-stopped"],
    ["another table", { facts: facts({ table: "ops.audit" }) }, "table-not-in-policy"],
    [
      "another table, with a step not marked",
      { facts: facts({ table: "ops.audit", stepId: "idempotent-restart" }) },
      "table-not-in-policy",
    ],
    [
      "a step not marked reversible and low risk",
      { facts: facts({ stepId: "idempotent-restart" }) },
      "step-not-marked",
    ],
    [
      "a source the step depends on did not answer",
      {
        facts: facts({
          report: {
            ...report,
            sources: { ...report.sources, flink: { status: "unavailable", error: "503" } },
          },
        }),
      },
      "source-unseen",
    ],
    [
      "an unknown commit not answered",
      {
        facts: facts({
          report: {
            ...report,
            findings: [
              ...report.findings,
              {
                id: "commit-state-unknown",
                severity: "critical",
                summary: "unknown",
                evidence: [{ source: "flink", detail: "x", data: {} }],
              },
            ],
          },
        }),
      },
      "unknown-commit",
    ],
    [
      "a verdict that proposes another step",
      { facts: facts({ report: { ...report, nextStep: null } }) },
      "verdict-not-selecting",
    ],
    ["a change in flight", { facts: facts({ inWalk: true }) }, "in-walk"],
    ["the step failed last time", { facts: facts({ failedLastTime: true }) }, "failed-before"],
    ["already handed back", { facts: facts({ handedBack: true }) }, "handed-back"],
    ["outside the hours", { config: config({}, { hours: "22:00-03:00" }) }, "outside-hours"],
    ["the table's budget spent", { budgets: { tableToday: 1, fleetLastHour: 1 } }, "table-budget"],
    ["the fleet's budget spent", { budgets: { tableToday: 0, fleetLastHour: 5 } }, "fleet-budget"],
  ])("refuses with a reason: %s", (_what, input, kind) => {
    const decision = decide(input);
    expect(decision.act).toBe(false);
    expect(decision.act ? undefined : decision.refusal.kind).toBe(kind);
  });

  it("reads hours over midnight and the catalog pattern", () => {
    expect(decide({ config: config({}, { hours: "22:00-04:00" }) }).act).toBe(true);
    const prod = config({}, { tables: [{ catalog: "prod", namespace: "db" }] });
    expect(decide({ config: prod }).act).toBe(false);
    expect(decide({ config: prod, facts: facts({ catalog: "prod" }) }).act).toBe(true);
  });
});
