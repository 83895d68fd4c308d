// Open items and risks live from the moment a diagnosis finds them: each scenario whose finding
// leaves work after the writer recovers (compaction over the writer's files, its last checkpoint
// snapshot about to expire, data to confirm after an unknown commit, a duplicate to remove) gives
// an open item of the right kind, named by its finding, from the report the bot really makes.

import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../../src/config.js";
import { openItemsOf } from "../../../src/core/verification/open-items.js";
import { diagnoseTable } from "../../../src/services/diagnose-table.js";
import { startLakehouse } from "../../../src/sim/lakehouse.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const agent = new Agent();
afterAll(() => agent.close());

async function reportOf(name: string) {
  const scenario = loadScenario(name);
  const lakehouse = await startLakehouse({ scenario: name });
  try {
    const ports = createEvidencePorts(
      loadConfig({
        ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
        FLINK_REST_URL: lakehouse.urls.flink,
        CONNECT_REST_URL: lakehouse.urls.connect,
        PROMETHEUS_URL: lakehouse.urls.prometheus,
      }),
      { dispatcher: agent, timeoutMs: 5_000 },
    );
    const now = lakehouse.clock.now();
    const { report } = await diagnoseTable(ports, { table: scenario.table }, () => now, {
      playbooks: PLAYBOOKS,
    });
    return report;
  } finally {
    await lakehouse.close();
  }
}

describe("open items found by the diagnosis", () => {
  it.each([
    ["mixed-compaction-and-second-job", "todo", "rewrite-in-window", /Move compaction off/],
    [
      "writer-last-snapshot-at-risk",
      "risk",
      "writer-last-snapshot-at-risk",
      /expiry can remove the writer's last checkpoint snapshot/,
    ],
    [
      "commit-state-unknown-resumed",
      "todo",
      "commit-state-unknown",
      /Confirm the data of the commit that did not land was committed once/,
    ],
    [
      "unknown-commit-across-savepoint",
      "todo",
      "commit-state-unknown",
      /Confirm the data of the commit that did not land was committed once/,
    ],
    [
      "commit-state-unknown-duplicate",
      "todo",
      "commit-state-unknown",
      /Remove the duplicate commit: snapshot \d+/,
    ],
  ] as const)("%s leaves a %s from %s", async (name, kind, findingId, text) => {
    const report = await reportOf(name);
    const items = openItemsOf(report);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind, findingId });
    expect(items[0]!.text).toMatch(text);
  });

  it("the duplicate is the work of the step the report names, so its Done by hand marks it done", async () => {
    const report = await reportOf("commit-state-unknown-duplicate");
    expect(openItemsOf(report)[0]?.resolvedBy).toBe(report.nextStep?.id);
    expect(report.nextStep?.id).toBe("remove-duplicate-commit");
  });

  it.each(["commit-state-unknown-resumed", "unknown-commit-across-savepoint"])(
    "%s: confirming the re-commit is the step the report names, with the open item's SELECT",
    async (name) => {
      const report = await reportOf(name);
      const unknown = report.findings.find((f) => f.id === "commit-state-unknown");
      expect(unknown).toMatchObject({ answered: true, answer: "recommitted" });
      expect(report.nextStep?.id).toBe("confirm-recommit");
      const [item] = openItemsOf(report);
      expect(item?.resolvedBy).toBe("confirm-recommit");
      const change = report.nextStep?.change;
      expect(change?.kind === "manual" ? change.statement : undefined).toBe(item?.statement);
    },
  );

  it("an in-flight commit that landed, the writer stuck since: no answer to act on, a restart", async () => {
    const report = await reportOf("commit-state-unknown-landed");
    expect(report.findings.find((f) => f.id === "commit-state-unknown")?.answer).toBeUndefined();
    expect(report.nextStep?.id).toBe("idempotent-restart");
    expect(openItemsOf(report)).toEqual([]);
  });

  it("a writer that recovers with nothing left over leaves no item", async () => {
    expect(openItemsOf(await reportOf("competing-appends"))).toEqual([]);
  });
});
