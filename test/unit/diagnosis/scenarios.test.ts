// Every scenario file parses with ScenarioSchema, names only real ids in its expect block, and
// together the library covers every finding id and every audit check.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AUDIT_CHECK_IDS, FINDING_IDS, STEP_IDS, TRIAGE_IDS } from "../../../src/core/ids.js";
import { type Scenario, ScenarioSchema } from "../../../src/sim/scenario/schema.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "../../../src/sim/scenarios");
const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
const load = (file: string): Scenario => ScenarioSchema.parse(parse(readFileSync(join(dir, file), "utf8")));

describe("scenario library files", () => {
  it("has scenarios", () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  it.each(files)("%s is valid and names known ids", (file) => {
    const scenario = load(file);
    expect(`${scenario.name}.yaml`).toBe(file);
    const e = scenario.expect;
    if (e.verdict !== undefined) expect(TRIAGE_IDS).toContain(e.verdict);
    for (const id of [...e.findings, ...e.absent]) expect(FINDING_IDS).toContain(id);
    for (const id of e.findings) expect(e.absent).not.toContain(id);
    if (e.nextStep) expect(STEP_IDS).toContain(e.nextStep);
    for (const id of Object.keys(e.audit)) expect(AUDIT_CHECK_IDS).toContain(id);
    expect(scenario.catalog.tables.map((t) => t.name)).toContain(scenario.table);
  });

  it("covers every finding id and every audit check", () => {
    const findings = new Set<string>();
    const checks = new Set<string>();
    for (const file of files) {
      const scenario = load(file);
      for (const id of scenario.expect.findings) findings.add(id);
      if (scenario.expect.verdict) findings.add(scenario.expect.verdict);
      for (const id of Object.keys(scenario.expect.audit)) checks.add(id);
    }
    expect([...FINDING_IDS].filter((id) => !findings.has(id))).toEqual([]);
    expect([...AUDIT_CHECK_IDS].filter((id) => !checks.has(id))).toEqual([]);
  });

  it("names the public upstream reports its scenarios are modelled on", () => {
    const withSources = files.map(load).filter((s) => s.sources.length > 0);
    expect(withSources.length).toBeGreaterThanOrEqual(15);
    for (const s of withSources) {
      // An upstream report, or the writer's own source pinned to a commit (the keys it writes).
      for (const url of s.sources)
        expect(url, s.name).toMatch(
          /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/((issues|pull)\/\d+|commit\/[0-9a-f]{40}|blob\/[0-9a-f]{40}\/[\w./-]+)$/,
        );
      // Each one says what it expects, so a test checks it (scenario-library.test.ts).
      expect(s.expect.verdict, s.name).toBeDefined();
      expect(s.expect.findings.length, s.name).toBeGreaterThan(0);
      expect(s.expect.nextStep, s.name).not.toBeUndefined();
    }
  });

  it("uses real exception shapes", () => {
    const text = files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("Cannot commit: Base metadata location '");
    expect(text).toContain("Cannot determine whether the commit was successful or not");
    expect(text).toContain("Found conflicting files that can contain records matching");
    expect(text).toContain(
      "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.",
    );
    expect(text).toContain("Coordinator unexpectedly terminated on committer");
    expect(text).toMatch(/application_\d{13}_\d{4}/);
  });
});
