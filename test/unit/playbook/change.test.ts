// The one change builder: for any current values a raise never proposes less than what is set,
// and the paths that propose a change (the diagnosis report, the playbook's next step, the
// proposal and its refresh, which all call proposeChange) agree on it.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildContext } from "../../../src/core/diagnosis/context.js";
import { playbookChange } from "../../../src/core/diagnosis/next-step.js";
import { CONNECT_DEFAULTS, TABLE_DEFAULTS } from "../../../src/core/properties.js";
import { proposeChange } from "../../../src/core/remediation/change.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import type { Playbook, Step } from "../../../src/core/remediation/schema.js";
import { buildNextStep } from "../../../src/core/remediation/select.js";
import { evidence, NOW, table } from "../../support/evidence-builders.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const steps = PLAYBOOKS.flatMap((p) => p.steps.map((step) => ({ playbook: p, step })));
const numericSteps = steps.filter(({ step }) =>
  step.changes.some(
    (c) =>
      (c.kind === "table-properties" || c.kind === "connector-config") && c.set.some((t) => t.mode !== "set"),
  ),
);
const keysOf = (step: Step) =>
  step.changes.flatMap((c) =>
    c.kind === "table-properties" || c.kind === "connector-config"
      ? c.set.flatMap((t) => [t.key, ...(t.budget ? [t.budget.perAttempt, t.budget.total] : [])])
      : [],
  );

/** Current values for a step's keys: each unset, or a whole number from 0 to 10^9. */
const currentValues = (step: Step) =>
  fc.record(
    Object.fromEntries(
      keysOf(step).map((key) => [key, fc.option(fc.nat({ max: 1_000_000_000 }), { nil: undefined })]),
    ),
    { requiredKeys: [] },
  );
const asProperties = (values: Record<string, number | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values)
      .filter((e): e is [string, number] => e[1] !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
const DEFAULTS: Record<string, string> = { ...TABLE_DEFAULTS, ...CONNECT_DEFAULTS };

describe("proposeChange", () => {
  it("the shipped playbooks have steps that raise values", () => {
    expect(numericSteps.map(({ step }) => step.id)).toEqual(
      expect.arrayContaining(["raise-commit-retries", "keep-writer-last-snapshot", "commit-less-often"]),
    );
  });

  for (const { step } of numericSteps) {
    it(`${step.id}: for any current values, every raised key is proposed at or above its current value`, () => {
      fc.assert(
        fc.property(currentValues(step), (values) => {
          const properties = asProperties(values);
          for (const writer of ["flink", "connect"] as const) {
            const change = proposeChange(step, {
              table: "db.events",
              writer,
              properties,
              connector: "events-sink",
              connectorConfig: properties,
            });
            if (!change || (change.kind !== "table-properties" && change.kind !== "connector-config"))
              continue;
            const variant = step.changes.find((c) => c.kind === change.kind);
            const templates = variant && "set" in variant ? variant.set : [];
            for (const template of templates.filter((t) => t.mode !== "set")) {
              const row = change.changes.find((c) => c.key === template.key);
              const now = Number(properties[template.key] ?? DEFAULTS[template.key] ?? 0);
              if (row) expect(Number(row.proposed)).toBeGreaterThanOrEqual(now);
              else expect(template.mode === "at-least" && now >= Number(template.value)).toBe(true);
            }
            // The budget keeps retries x wait within the total timeout.
            for (const template of templates.filter((t) => t.budget)) {
              const attempts = Number(change.changes.find((c) => c.key === template.key)?.proposed);
              const perRow = change.changes.find((c) => c.key === template.budget!.perAttempt);
              const per = Number(
                perRow?.proposed ??
                  properties[template.budget!.perAttempt] ??
                  DEFAULTS[template.budget!.perAttempt],
              );
              const total = Number(properties[template.budget!.total] ?? DEFAULTS[template.budget!.total]);
              expect(attempts * per).toBeLessThanOrEqual(total + attempts);
            }
          }
        }),
      );
    });
  }

  it("all paths agree: the diagnosis report, the playbook's next step and the proposal", () => {
    const raise = steps.find(({ step }) => step.id === "raise-commit-retries")!;
    fc.assert(
      fc.property(currentValues(raise.step), (values) => {
        const properties = asProperties(values);
        const ctx = buildContext(evidence({ table: table({ properties }) }), NOW, {});
        const facts = { table: ctx.tableName, writer: "unknown" as const, properties };
        const proposal = proposeChange(raise.step, facts);
        const report = playbookChange(raise.step, ctx);
        const next = buildNextStep(raise.playbook, raise.step, facts)?.change;
        expect(report).toEqual(proposal);
        expect(next).toEqual(proposal);
      }),
    );
  });

  it("editing the YAML changes what is proposed", () => {
    const text = `kind: steps
id: edited
title: Edited
terminals: [{ id: done, outcome: resolved, title: Done }]
steps:
  - id: raise-commit-retries
    title: Retries
    selectedBy: [competing-appends]
    why: Because.
    risk: Low.
    automatic: true
    changes:
      - kind: table-properties
        set: [{ key: commit.retry.num-retries, value: "20", mode: raise, max: "25" }]
    verify: { signals: [writer-snapshots-resume] }
    transitions: { recovered: done, ineffective: [done] }
`;
    const edited = parsePlaybook(text, "edited.yaml").playbook as Playbook;
    const step = edited.steps[0]!;
    const propose = (n: string) =>
      proposeChange(step, {
        table: "db.events",
        writer: "flink",
        properties: { "commit.retry.num-retries": n },
      });
    expect(propose("4")).toMatchObject({ changes: [{ proposed: "20" }] });
    expect(propose("20")).toMatchObject({ changes: [{ proposed: "25" }] });
    expect(propose("30")).toMatchObject({ changes: [{ current: "30", proposed: "30" }] });
  });

  it("the retry step: unset to 10, 30 to the cap of 50, never 30 to 10", () => {
    const { step } = steps.find((s) => s.step.id === "raise-commit-retries")!;
    const at = (n?: string) => {
      const change = proposeChange(step, {
        table: "db.events",
        writer: "flink",
        properties: n ? { "commit.retry.num-retries": n } : {},
      });
      return change?.kind === "table-properties" ? change.changes[0] : undefined;
    };
    expect(at()).toEqual({ key: "commit.retry.num-retries", current: null, proposed: "10" });
    expect(at("30")).toEqual({ key: "commit.retry.num-retries", current: "30", proposed: "50" });
    expect(at("80")).toEqual({ key: "commit.retry.num-retries", current: "80", proposed: "80" });
  });
});

describe("a step whose change is already in place", () => {
  it("says so, in a change the report's schema accepts, instead of an empty change", async () => {
    const { ChangeSchema } = await import("../../../src/core/report/schema.js");
    const step = steps.find(({ step }) => step.id === "commit-less-often")!.step;
    const change = proposeChange(step, {
      table: "db.events",
      writer: "connect",
      connector: "events-sink",
      // Already raised past the step's at-least 600000.
      connectorConfig: { "iceberg.control.commit.interval-ms": "900000" },
    });
    expect(ChangeSchema.safeParse(change).success).toBe(true);
    expect(change).toMatchObject({ kind: "manual" });
    const text = JSON.stringify(change);
    expect(text).toContain("Already in place on events-sink: iceberg.control.commit.interval-ms = 900000");
  });
});
