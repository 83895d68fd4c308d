// The simulator's clock: a running clock follows the wall clock from the simulator's start, so a
// client reading the real time (the CLI, the bot) keeps seeing the scenario it started with.

import { afterEach, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../../src/config.js";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import { investigate } from "../../../src/services/investigate/investigate.js";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

let lakehouse: Lakehouse | undefined;
afterEach(async () => {
  await lakehouse?.close();
  lakehouse = undefined;
});

describe("simulator clock", () => {
  it("a frozen clock moves only when advanced; a running one follows the wall clock too", () => {
    let wall = 1_000_000;
    const frozen = createSimClock(5_000, { wall: () => wall });
    const running = createSimClock(5_000, { running: true, wall: () => wall });
    wall += 60_000;
    expect(frozen.now()).toBe(5_000);
    expect(running.now()).toBe(65_000);
    running.advance(1_000);
    frozen.advance(1_000);
    expect(running.now()).toBe(66_000);
    expect(frozen.now()).toBe(6_000);
    expect(running.running).toBe(true);
    expect(() => running.advance(-1)).toThrow(/cannot advance the simulator clock/);
  });

  it("competing-appends diagnoses the same 25 minutes after the simulator started", async () => {
    let wall = Date.parse("2026-11-30T10:00:00Z");
    const clock = createSimClock(undefined, { running: true, wall: () => wall });
    lakehouse = await startLakehouse({ scenario: "competing-appends", clock });
    const config = loadConfig({
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      PROMETHEUS_URL: lakehouse.urls.prometheus,
    });
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    // The client reads the wall clock, as `iceberg-bot diagnose` does.
    const diagnoseNow = async () => {
      const now = wall;
      const evidence = await investigate(ports, { table: "db.events", timeoutMs: 5000 }, () => now);
      const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
      return {
        verdict: report.verdict,
        next: report.nextStep?.id,
        findings: report.findings.map((f) => f.id),
      };
    };
    const atStart = await diagnoseNow();
    expect(atStart).toMatchObject({ verdict: "commit-conflict", next: "raise-commit-retries" });
    wall += 25 * 60_000;
    expect(await diagnoseNow()).toEqual(atStart);
    // The world moved on meanwhile: the Spark backfill kept committing.
    expect(lakehouse.state().tables[0]?.lastUpdatedMs).toBeGreaterThan(Date.parse("2026-11-30T10:20:00Z"));
  });
});
