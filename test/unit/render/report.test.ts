import { describe, expect, it } from "vitest";
import { renderReportMarkdown, renderReportText } from "../../../src/adapters/render/report.js";
import type { Report } from "../../../src/core/report/schema.js";
import { unansweredSources } from "../../../src/core/report/unanswered.js";
import { compactionReport, conflictReport, connectReport, healthyReport, partialReport } from "./samples.js";

const ESC = "\u001b";

describe("renderReportText", () => {
  it("puts the verdict first, then the next step, the evidence and the missing sources", () => {
    const text = renderReportText(conflictReport, { color: false });
    const lines = text.split("\n");
    expect(lines[0]).toBe(
      "✖ db.events: commit conflict — the writer's commits fail with CommitFailedException after its retries ran out",
    );
    const order = ["Next step:", "Evidence:", "Could not read:", "Generated"].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("shows the exact property change with current and proposed values", () => {
    const text = renderReportText(conflictReport, { color: false });
    expect(text).toContain("Next step: raise commit retries [raise-commit-retries]");
    expect(text).toContain("    commit.retry.num-retries: 4 → 10\n");
    expect(text).toContain("    commit.retry.min-wait-ms: unset (default 100) → 500\n");
    expect(text).toContain("once an approver presses Apply");
  });

  it("cuts long evidence lists and says how many were left out", () => {
    const text = renderReportText(conflictReport, { color: false });
    expect(text).toContain("… and 3 more");
    expect(text).toContain("08:26 UTC");
    expect(text).not.toContain("08:27 UTC");
    const shorter = renderReportText(conflictReport, { color: false, maxEvidence: 2 });
    expect(shorter).toContain("… and 5 more");
  });

  it("names sources that did not answer and those not configured", () => {
    const text = renderReportText(compactionReport, { color: false });
    expect(text).toContain("Could not read:\n  Flink REST API: timed out after 5 s\n");
    expect(text).toContain("Not configured: Kafka Connect REST API, Prometheus");
    expect(text).toContain("read from catalog 8 ms");
  });

  it("prints a manual statement verbatim so it can be copied", () => {
    const text = renderReportText(compactionReport, { color: false });
    expect(text).toContain("Run this yourself:");
    expect(text).toContain(
      "    CALL lake.system.rewrite_data_files(\n      table => 'analytics.web.clicks',\n      where => 'event_date < ''2026-11-29''')\n",
    );
    expect(text).toContain("    - pause the compaction schedule first");
    expect(text).toContain("The bot cannot apply this");
  });

  it("describes a connector restart with the REST call it maps to", () => {
    const text = renderReportText(connectReport, { color: false });
    expect(text).toContain("Restart connector iceberg-orders and its failed tasks:");
    expect(text).toContain("POST /connectors/iceberg-orders/restart?includeTasks=true&onlyFailed=true");
  });

  it("does not repeat the verdict's name when its summary starts with it", () => {
    const repeated: Report = structuredClone(conflictReport);
    repeated.findings[0]!.summary = "Commit conflict: retries ran out";
    const [first] = renderReportText(repeated, { color: false }).split("\n");
    expect(first).toBe("✖ db.events: commit conflict — retries ran out");
  });

  it("says a healthy table needs nothing", () => {
    const text = renderReportText(healthyReport, { color: false });
    expect(text.startsWith("✔ db.events: healthy — the writer committed 3 minutes ago")).toBe(true);
    expect(text).toContain("Next step: none needed.");
  });

  it("uses colour only when asked", () => {
    expect(renderReportText(conflictReport, { color: false })).not.toContain(ESC);
    const colored = renderReportText(conflictReport, { color: true });
    expect(colored).toContain(`${ESC}[31m`);
    expect(
      colored
        .split(ESC)
        .map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, "")))
        .join(""),
    ).toBe(renderReportText(conflictReport, { color: false }));
  });

  it("strips escape sequences and control characters coming from upstream text", () => {
    const hostile: Report = structuredClone(conflictReport);
    hostile.findings[0]!.evidence[0]!.detail = `boom ${ESC}]0;pwned\u0007${ESC}[2Jcleared\u0000\u0008 end`;
    hostile.findings[0]!.summary = "line one\nline two";
    const text = renderReportText(hostile, { color: false });
    expect(text).not.toContain(ESC);
    expect(text).not.toContain("\u0007");
    expect(text).not.toContain("\u0000");
    expect(text).toContain("boom cleared end");
    expect(text).toContain("line one line two");
  });
});

describe("renderReportMarkdown", () => {
  it("renders verdict, change, evidence and sources as Markdown", () => {
    const md = renderReportMarkdown(conflictReport);
    expect(md.split("\n")[0]).toBe("### 🔴 db.events: commit conflict");
    expect(md).toContain("**Next step: raise commit retries** (`raise-commit-retries`)");
    expect(md).toContain("- `commit.retry.num-retries`: `4` → `10`");
    expect(md).toContain("- `commit.retry.min-wait-ms`: `unset (default 100)` → `500`");
    expect(md).toContain("  - … and 3 more");
    expect(md).toContain("**Could not read**\n\n- Prometheus: timed out after 5 s");
  });

  it("puts a manual statement in a fenced block with its language", () => {
    const md = renderReportMarkdown(compactionReport);
    expect(md).toContain("```sql\nCALL lake.system.rewrite_data_files(\n  table => 'analytics.web.clicks',");
    expect(md).toContain("- [ ] pause the compaction schedule first");
  });

  it("keeps upstream text from becoming links or breaking fences", () => {
    const hostile: Report = structuredClone(compactionReport);
    hostile.findings[0]!.summary = "see [here](http://evil.example) *now*";
    if (hostile.nextStep?.change.kind === "manual")
      hostile.nextStep.change.statement = "SELECT '```' AS fence";
    const md = renderReportMarkdown(hostile);
    expect(md).toContain("see \\[here\\](http\\[:\\]//evil\\[.\\]example) \\*now\\*");
    expect(md).toContain("````sql\nSELECT '```' AS fence\n````");
  });

  it("leaves intraword underscores and plain punctuation readable", () => {
    const md = renderReportMarkdown(conflictReport);
    expect(md).toContain("by spark.app.id application_1700000000000_0412");
    const odd: Report = structuredClone(conflictReport);
    odd.findings[0]!.summary = "_emphasis_ a != b (c) <b>html</b>";
    expect(renderReportMarkdown(odd)).toContain("\\_emphasis\\_ a != b (c) \\<b>html\\</b>");
  });
});

describe("what a report could not read", () => {
  it("names a whole kind that did not answer and each silent cluster of a kind that did", () => {
    expect(unansweredSources(partialReport.sources)).toEqual([
      { kind: "flink", source: "flink-us", reason: "Flink REST at 10.0.0.7:8081 refused the connection" },
      { kind: "prometheus", reason: "Prometheus did not answer within 5000 ms" },
    ]);
    const text = renderReportText(partialReport, { color: false });
    expect(text).toContain(
      "Could not read:\n  Flink REST API (flink-us): Flink REST at 10.0.0.7:8081 refused the connection\n  Prometheus: ",
    );
    // Flink answered in part: it still counts among the sources read.
    expect(text).toMatch(/read from catalog 10 ms · flink 20 ms/);
  });
});
