// Every scenario's diagnosis, read as a person reads it: no internal id in a sentence, no evidence
// line cut mid-fact, and a writer quiet by design is said to be quiet (with when it commits next),
// never "committing normally". The simulator serves each scenario over loopback and the real
// clients read it, as in scenario-library.test.ts.

import { afterAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { renderDiagnosis, renderEvidenceModal } from "../../src/adapters/slack/render/diagnosis.js";
import { loadConfig } from "../../src/config.js";
import { diagnose } from "../../src/core/diagnosis/diagnose.js";
import { FINDING_IDS, STEP_IDS } from "../../src/core/ids.js";
import type { Report } from "../../src/core/report/schema.js";
import { investigate } from "../../src/services/investigate/investigate.js";
import { createSimClock } from "../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { listScenarios, loadScenario } from "../../src/sim/scenarios.js";
import { PLAYBOOKS } from "../support/playbooks.js";
import { HAPPY_PATH_TIMEOUT_MS } from "../support/poll.js";

const running: Lakehouse[] = [];
afterAll(async () => {
  await Promise.all(running.map((lakehouse) => lakehouse.close()));
});

// A fixed "now", late in the UTC day, so a quiet writer's next commit falls on the next day in
// every run: the words must not depend on when the suite happens to run.
const LATE_EVENING = Date.parse("2026-12-04T21:48:51Z");

async function reportOf(name: string): Promise<Report> {
  const scenario = loadScenario(name);
  const lakehouse = await startLakehouse({ scenario, clock: createSimClock(LATE_EVENING) });
  running.push(lakehouse);
  const ports = createEvidencePorts(loadConfig(lakehouse.env()), { timeoutMs: HAPPY_PATH_TIMEOUT_MS });
  const now = lakehouse.clock.now();
  const evidence = await investigate(
    ports,
    { table: scenario.table, timeoutMs: HAPPY_PATH_TIMEOUT_MS },
    () => now,
  );
  await lakehouse.close();
  return diagnose(evidence, now, { playbooks: PLAYBOOKS });
}

/** Every text a message shows, nested or not, and its fallback text. */
function shown(blocks: unknown, text = ""): string {
  const parts = [text];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object")
      for (const [key, child] of Object.entries(value)) {
        if (key === "text" && typeof child === "string") parts.push(child);
        else visit(child);
      }
  };
  visit(blocks);
  return parts.join("\n");
}

/** Prose only: code spans and blocks may quote ids (and upstream text) as they are. */
const prose = (text: string) => text.replace(/```[\s\S]*?```|`[^`\n]*`/g, " ");
// One-word ids ("healthy") are plain words too; the hyphenated ones are ours alone.
const IDS = [...FINDING_IDS, ...STEP_IDS].filter((id) => id.includes("-"));

function idsIn(text: string): string[] {
  const said = prose(text);
  return IDS.filter((id) => new RegExp(`(?<![\\w.-])${id}(?![\\w-])`).test(said));
}

/** The evidence lines of the first screen, as the report has them (without the bullet). */
function evidenceLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("• "))
    .map((line) => line.slice(2).replace(/<!date\^\d+\^[^|]*\|([^>]*)>/g, "$1"));
}

describe("the diagnosis of every scenario, in words", () => {
  it.each(listScenarios())("%s", async (name) => {
    const report = await reportOf(name);
    const message = renderDiagnosis(report, { evidenceRef: "ref-1" });
    const screen = shown(message.blocks, message.text);

    expect(idsIn(screen), `ids in the diagnosis of ${name}`).toEqual([]);
    expect(idsIn(shown(renderEvidenceModal(report).blocks)), `ids in the evidence of ${name}`).toEqual([]);

    // Whole facts only: each line ends as its evidence or summary ends, never with a cut "…".
    for (const line of evidenceLines(screen)) expect(line, `a line of ${name}`).not.toMatch(/…$/);

    if (report.findings.some((f) => f.id === "writer-idle")) {
      const first = screen.replace(/<!date\^\d+\^[^|]*\|([^>]*)>/g, "$1");
      expect(first).not.toContain("committing normally");
      expect(first).toContain("quiet as expected");
      const verdictLine = first.split("\n").find((l) => l.includes("quiet as expected ("));
      // The day is named when the next commit falls on another UTC day than now (late-evening runs).
      expect(verdictLine, `when ${name} commits again`).toMatch(
        /next commit is due around (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} UTC|commits resume when records arrive/,
      );
    }
  });
});
