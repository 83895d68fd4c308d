import { describe, expect, it } from "vitest";
import { renderAuditMarkdown, renderAuditText } from "../../../src/adapters/render/audit.js";
import type { AuditReport } from "../../../src/core/report/schema.js";
import { auditReport } from "./samples.js";

describe("renderAuditText", () => {
  it("counts the results and lists failures first with their values and fix", () => {
    const text = renderAuditText(auditReport, { color: false });
    const lines = text.split("\n");
    expect(lines[0]).toBe("db.events audit: 1 fail, 1 warn, 1 pass");
    expect(lines[1]).toMatch(/^ {2}fail {2}retry-budget {5}commit retries at the default/);
    expect(lines[2]).toContain("values: commit.retry.num-retries=unset, commit.retry.min-wait-ms=unset");
    expect(lines[3]).toContain(
      "fix: ALTER TABLE db.events SET TBLPROPERTIES ('commit.retry.num-retries'='10')",
    );
    const warn = text.indexOf("warn  snapshot-expiry");
    const pass = text.indexOf("pass  write-mode");
    expect(warn).toBeGreaterThan(0);
    expect(pass).toBeGreaterThan(warn);
  });

  it("shows no values or fix for a passing check", () => {
    const text = renderAuditText(auditReport, { color: false });
    expect(text).not.toContain("write.update.mode=");
  });

  it("colours statuses only when asked", () => {
    expect(renderAuditText(auditReport, { color: false })).not.toContain("\u001b[");
    expect(renderAuditText(auditReport, { color: true })).toContain("\u001b[31mfail");
  });

  it("says so when no check ran", () => {
    const empty: AuditReport = { ...auditReport, checks: [] };
    expect(renderAuditText(empty, { color: false })).toContain("(no checks ran)");
  });
});

describe("renderAuditMarkdown", () => {
  it("renders a table with failures first and escaped pipes in fixes", () => {
    const withPipe: AuditReport = structuredClone(auditReport);
    withPipe.checks[2]!.fix = "a | b";
    const md = renderAuditMarkdown(withPipe);
    const rows = md.split("\n").filter((l) => l.startsWith("| "));
    expect(rows[0]).toBe("| status | check | found | fix |");
    expect(rows[1]).toBe("| --- | --- | --- | --- |");
    expect(rows[2]).toContain("**fail** | `retry-budget`");
    expect(rows[2]).toContain("`a \\| b`");
    expect(rows[3]).toContain("**warn** | `snapshot-expiry`");
    expect(rows[4]).toMatch(/^\| pass \| `write-mode` \| merge-on-read for updates and deletes \| {2}\|$/);
  });
});
