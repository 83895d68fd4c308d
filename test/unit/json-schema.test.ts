import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { AUDIT_SCHEMA_FILE, REPORT_SCHEMA_FILE, renderSchemaFiles } from "../../src/cli/schemas.js";
import { AuditReportSchema, ReportSchema } from "../../src/core/report/schema.js";
import { allSampleReports, auditReport } from "./render/samples.js";

const docsDir = path.resolve(import.meta.dirname, "../../docs");
const readDoc = (file: string) => readFileSync(path.join(docsDir, file), "utf8");

// The pattern in the schema already pins date-time; formats are not needed to validate it.
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
const validateReport = ajv.compile(JSON.parse(readDoc(REPORT_SCHEMA_FILE)));
const validateAudit = ajv.compile(JSON.parse(readDoc(AUDIT_SCHEMA_FILE)));

describe("published JSON Schemas", () => {
  it("docs/ matches the zod schemas (run `iceberg-bot schemas --write docs` when this fails)", () => {
    for (const { file, text } of renderSchemaFiles()) expect(readDoc(file), file).toBe(text);
  });

  it("accepts every sample report, as zod does", () => {
    for (const report of allSampleReports) {
      expect(ReportSchema.safeParse(report).success).toBe(true);
      expect(validateReport(JSON.parse(JSON.stringify(report))), JSON.stringify(validateReport.errors)).toBe(
        true,
      );
    }
    expect(AuditReportSchema.safeParse(auditReport).success).toBe(true);
    expect(validateAudit(JSON.parse(JSON.stringify(auditReport))), JSON.stringify(validateAudit.errors)).toBe(
      true,
    );
  });

  it.each([
    ["an unknown verdict", (r: Record<string, unknown>) => Object.assign(r, { verdict: "flaky" })],
    [
      "a missing source",
      (r: Record<string, unknown>) => Object.assign(r, { sources: { catalog: { status: "ok" } } }),
    ],
    [
      "a local time without zone",
      (r: Record<string, unknown>) => Object.assign(r, { generatedAt: "2026-11-29 09:12" }),
    ],
    ["reportVersion 2", (r: Record<string, unknown>) => Object.assign(r, { reportVersion: 2 })],
    [
      "a finding without evidence",
      (r: Record<string, unknown>) =>
        Object.assign(r, { findings: [{ id: "healthy", severity: "info", summary: "ok", evidence: [] }] }),
    ],
    [
      "an unknown change kind",
      (r: Record<string, unknown>) =>
        Object.assign(r, {
          nextStep: {
            id: "check-checkpoints",
            playbook: "p",
            summary: "s",
            change: { kind: "reboot" },
            automatic: false,
          },
        }),
    ],
  ])("rejects a report with %s", (_label, mutate) => {
    const broken = mutate(JSON.parse(JSON.stringify(allSampleReports[0])) as Record<string, unknown>);
    expect(validateReport(broken)).toBe(false);
    expect(ReportSchema.safeParse(broken).success).toBe(false);
  });

  it("rejects fields the contract does not name (zod strips them before output)", () => {
    const extra = { ...JSON.parse(JSON.stringify(allSampleReports[0])), extra: true };
    expect(validateReport(extra)).toBe(false);
    expect(ReportSchema.parse(extra)).not.toHaveProperty("extra");
  });

  it("rejects an audit check with an unknown status", () => {
    const broken = structuredClone(auditReport) as unknown as { checks: { status: string }[] };
    broken.checks[0]!.status = "maybe";
    expect(validateAudit(broken)).toBe(false);
  });

  it("describes the report for readers of docs/", () => {
    const schema = JSON.parse(readDoc(REPORT_SCHEMA_FILE)) as { title: string; required: string[] };
    expect(schema.title).toBe("iceberg-bot diagnosis report");
    expect(schema.required).toEqual(
      expect.arrayContaining([
        "reportVersion",
        "table",
        "generatedAt",
        "verdict",
        "findings",
        "nextStep",
        "sources",
      ]),
    );
  });
});
