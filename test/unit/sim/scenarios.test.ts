import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CodedError, ErrorCode } from "../../../src/errors.js";
import { createSimClock } from "../../../src/sim/clock.js";
import { listScenarios, loadScenario, parseScenarioText } from "../../../src/sim/scenarios.js";
import { parseDuration, resolveRelative } from "../../../src/sim/time.js";

function caught(fn: () => unknown): CodedError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CodedError) return err;
    throw err;
  }
  throw new Error("expected a CodedError");
}

describe("scenario loader", () => {
  it("lists and loads the built-in scenarios", () => {
    const names = listScenarios();
    expect(names).toEqual(
      expect.arrayContaining(["competing-appends", "healthy-connect", "healthy-flink", "quiet-table"]),
    );
    for (const name of names) expect(loadScenario(name).name).toBe(name);
    const demo = loadScenario("competing-appends");
    expect(demo.expect).toMatchObject({
      verdict: "commit-conflict",
      findings: ["competing-appends", "default-retry-budget"],
      nextStep: "raise-commit-retries",
    });
    expect(demo.writers[0]?.recoversWhen).toEqual({
      when: "table-property-at-least",
      table: "db.events",
      key: "commit.retry.num-retries",
      value: 8,
    });
  });

  it("names the file and the field when a scenario is invalid", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sim-scenario-"));
    const file = path.join(dir, "bad.yaml");
    writeFileSync(
      file,
      [
        "name: bad",
        "description: broken on purpose",
        "table: db.t",
        "catalog:",
        "  tables:",
        "    - name: db.t",
        "      snapshots:",
        "        - at: yesterday",
        "          operation: append",
        "          committer: { kind: spark, appId: a }",
      ].join("\n"),
    );
    const err = caught(() => loadScenario(file));
    expect(err.code).toBe(ErrorCode.ConfigInvalid);
    expect(err.message).toContain(file);
    expect(err.message).toContain("catalog.tables.0.snapshots.0");
    expect(err.details?.fields).toEqual(
      expect.arrayContaining([expect.stringContaining("catalog.tables.0.snapshots.0")]),
    );
  });

  it("names the file when the YAML itself is broken, and unknown names list the built-ins", () => {
    const err = caught(() => parseScenarioText("name: [unclosed", "scenarios/x.yaml"));
    expect(err.message).toMatch(/^scenarios\/x\.yaml: not valid YAML/);
    const missing = caught(() => loadScenario("no-such-scenario"));
    expect(missing.code).toBe(ErrorCode.UsageInvalid);
    expect(missing.hint).toContain("competing-appends");
  });
});

describe("scenario times", () => {
  it("parses durations and resolves relative times against the clock", () => {
    expect(parseDuration("5m")).toBe(300_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(resolveRelative("-55m", 10_000_000)).toBe(10_000_000 - 3_300_000);
    expect(resolveRelative("0", 42)).toBe(42);
    expect(() => parseDuration("soon")).toThrow(/duration/);
  });

  it("moves only forward", () => {
    const clock = createSimClock(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
    expect(caught(() => clock.advance(-1)).code).toBe(ErrorCode.UsageInvalid);
    expect(clock.now()).toBe(1_500);
  });
});
