import { describe, expect, it } from "vitest";
import type { AuditReport, Report } from "../../src/core/report/schema.js";
import { DigestBuilder } from "../../src/core/sweep/digest.js";
import {
  CHECK_WEIGHTS,
  compareHealth,
  FAILING_NOW_PENALTY,
  type TableHealth,
  tableHealth,
} from "../../src/core/sweep/health.js";

const AT = "2026-01-01T00:00:00.000Z";

function auditOf(table: string, statuses: Record<string, "pass" | "warn" | "fail">): AuditReport {
  return {
    reportVersion: 1,
    table,
    generatedAt: AT,
    checks: Object.entries(statuses).map(([id, status]) => ({
      id,
      status,
      summary: `${id} is ${status}`,
      values: {},
      ...(status === "pass" ? {} : { fix: `ALTER TABLE ${table} SET TBLPROPERTIES (\n  '${id}' = 'x'\n);` }),
    })),
  } as AuditReport;
}

function diagnosisOf(table: string, verdict: string): Report {
  return {
    reportVersion: 1,
    table,
    generatedAt: AT,
    verdict,
    findings: [],
    nextStep: null,
    sources: {
      catalog: { status: "ok", latencyMs: 1 },
      flink: { status: "not-configured" },
      connect: { status: "not-configured" },
      prometheus: { status: "not-configured" },
    },
  } as unknown as Report;
}

describe("health score", () => {
  it("takes each failing check's weight off, half for a warning, and more for a failure right now", () => {
    const h = tableHealth(
      "db.a",
      auditOf("db.a", { "retry-budget": "fail", "snapshot-count": "warn", "wap-branches": "pass" }),
      diagnosisOf("db.a", "commit-conflict"),
    );
    expect(h.score).toBe(
      100 - CHECK_WEIGHTS["retry-budget"] - CHECK_WEIGHTS["snapshot-count"] / 2 - FAILING_NOW_PENALTY,
    );
    expect(h.checks).toEqual({ "retry-budget": "fail", "snapshot-count": "warn", "wap-branches": "pass" });
    // The heaviest failing check's fix, folded onto one line.
    expect(h.fix).toBe("ALTER TABLE db.a SET TBLPROPERTIES ('retry-budget' = 'x');");
  });

  it("never goes below zero, and a clean table scores 100 with no fix", () => {
    const all = Object.fromEntries(Object.keys(CHECK_WEIGHTS).map((id) => [id, "fail" as const]));
    expect(tableHealth("db.a", auditOf("db.a", all), diagnosisOf("db.a", "commit-failing")).score).toBe(0);
    const clean = tableHealth(
      "db.b",
      auditOf("db.b", { "retry-budget": "pass" }),
      diagnosisOf("db.b", "healthy"),
    );
    expect(clean).toEqual({
      table: "db.b",
      score: 100,
      checks: { "retry-budget": "pass" },
      verdict: "healthy",
    });
  });

  it("ranks by score, then by more failing checks, then by name", () => {
    const t = (table: string, score: number, fails: number): TableHealth => ({
      table,
      score,
      verdict: "healthy",
      checks: Object.fromEntries(
        Object.keys(CHECK_WEIGHTS)
          .slice(0, fails)
          .map((id) => [id, "fail"]),
      ),
    });
    const sorted = [t("db.c", 90, 1), t("db.b", 80, 1), t("db.a", 90, 2), t("db.d", 90, 1)].sort(
      compareHealth,
    );
    expect(sorted.map((x) => x.table)).toEqual(["db.b", "db.a", "db.c", "db.d"]);
  });

  it("puts a table failing now before any lower score that is only at risk", () => {
    const t = (table: string, score: number, verdict: string) => ({ table, score, verdict, checks: {} });
    const sorted = [
      t("db.risky", 40, "healthy"),
      t("db.down", 75, "commit-failing"),
      t("db.ok", 100, "healthy"),
    ].sort(compareHealth);
    expect(sorted.map((x) => x.table)).toEqual(["db.down", "db.risky", "db.ok"]);
  });
});

describe("digest", () => {
  const health = (table: string, score: number, checks: TableHealth["checks"]) => ({
    kind: "health" as const,
    table,
    score,
    verdict: "healthy",
    checks,
  });

  it("keeps the worst N, counts by check, and the changes since the previous sweep", () => {
    const b = new DigestBuilder({ sweepId: "s2", startedAtMs: 0, worstLimit: 2, hasPrevious: true });
    b.add(health("db.a", 85, { "retry-budget": "fail" }), { "retry-budget": "pass" });
    b.add(health("db.b", 100, { "retry-budget": "pass" }), { "retry-budget": "fail" });
    b.add(health("db.c", 60, { "retry-budget": "fail", "snapshot-expiry": "fail" }));
    b.add(health("db.d", 92, { "wap-branches": "warn" }));
    b.add({ kind: "error", table: "db.e", error: "timed out" });
    const d = b.finish(10);
    expect(d.worst.map((t) => t.table)).toEqual(["db.c", "db.a"]);
    expect(d.tables).toBe(4);
    expect(d.failingTables).toBe(2);
    expect(d.countsByCheck["retry-budget"]).toEqual({ fail: 2, warn: 0 });
    expect(d.countsByCheck["wap-branches"]).toEqual({ fail: 0, warn: 1 });
    // db.c was not graded last time: it is not a "new failure", it is new to the sweep.
    expect(d.changes).toEqual({
      newFailures: [{ table: "db.a", check: "retry-budget" }],
      newFailuresTotal: 1,
      fixed: [{ table: "db.b", check: "retry-budget" }],
      fixedTotal: 1,
    });
    expect(d.errors).toEqual([{ table: "db.e", error: "timed out" }]);
  });

  it("says nothing about changes on the first sweep", () => {
    const b = new DigestBuilder({ sweepId: "s1", startedAtMs: 0, hasPrevious: false });
    b.add(health("db.a", 85, { "retry-budget": "fail" }));
    expect(b.finish(1).changes).toBeUndefined();
  });
});
