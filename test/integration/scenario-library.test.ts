// Every scenario in the library, end to end: the simulator serves it over loopback, the real
// clients read it, the core diagnoses and audits it, and the outcome matches the scenario's
// `expect` block. This is what keeps the scenarios and the rules honest with each other.

import { afterAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../src/config.js";
import { audit } from "../../src/core/audit/audit.js";
import { diagnose } from "../../src/core/diagnosis/diagnose.js";
import { reportViolations } from "../../src/core/diagnosis/invariants.js";
import { AuditReportSchema, ReportSchema } from "../../src/core/report/schema.js";
import { investigate } from "../../src/services/investigate/investigate.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { listScenarios, loadScenario } from "../../src/sim/scenarios.js";
import { PLAYBOOKS } from "../support/playbooks.js";
import { HAPPY_PATH_TIMEOUT_MS } from "../support/poll.js";

const running: Lakehouse[] = [];
afterAll(async () => {
  await Promise.all(running.map((lakehouse) => lakehouse.close()));
});

describe("scenario library", () => {
  const names = listScenarios();

  it("has a scenario for the demo and the healthy baselines", () => {
    for (const name of ["competing-appends", "healthy-flink", "healthy-connect", "quiet-table"]) {
      expect(names).toContain(name);
    }
  });

  it.each(names)("%s diagnoses as its expect block says", async (name) => {
    const scenario = loadScenario(name);
    const lakehouse = await startLakehouse({ scenario });
    running.push(lakehouse);
    // A many-cluster scenario adds BOT_CONFIG's sources for its named clusters and catalogs.
    const config = loadConfig(lakehouse.env());
    const ports = createEvidencePorts(config, { timeoutMs: HAPPY_PATH_TIMEOUT_MS });
    const now = lakehouse.clock.now();
    const evidence = await investigate(
      ports,
      { table: scenario.table, timeoutMs: HAPPY_PATH_TIMEOUT_MS },
      () => now,
    );

    const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
    expect(ReportSchema.safeParse(report).success).toBe(true);
    expect(reportViolations(report, evidence), `invariants of ${name}`).toEqual([]);
    const fired = report.findings.map((finding) => finding.id);
    const expected = scenario.expect;
    if (expected.verdict) expect(report.verdict, `verdict of ${name}`).toBe(expected.verdict);
    for (const id of expected.findings) expect(fired, `${name} should find ${id}`).toContain(id);
    for (const id of expected.absent) expect(fired, `${name} should not find ${id}`).not.toContain(id);
    if (expected.nextStep !== undefined)
      expect(report.nextStep?.id ?? null, `next step of ${name}`).toBe(expected.nextStep);
    for (const finding of report.findings) expect(finding.evidence.length).toBeGreaterThan(0);

    const auditReport = audit(evidence, now);
    expect(AuditReportSchema.safeParse(auditReport).success).toBe(true);
    for (const [check, status] of Object.entries(expected.audit)) {
      const found = auditReport.checks.find((c) => c.id === check);
      expect(found?.status, `audit ${check} of ${name}`).toBe(status);
    }
    await lakehouse.close();
  });
});
