import { describe, expect, it } from "vitest";
import type { KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import { renderDiagnosis, renderEvidenceModal } from "../../../src/adapters/slack/render/diagnosis.js";
import { type Report, ReportSchema } from "../../../src/core/report/schema.js";
import { checkBlocks, checkView } from "../../../src/sim/slack/block-rules.js";

function report(overrides: Partial<Report> = {}): Report {
  return ReportSchema.parse({
    reportVersion: 1,
    table: "db.events",
    generatedAt: "2026-11-29T09:14:00Z",
    verdict: "commit-conflict",
    findings: [
      {
        id: "commit-conflict",
        severity: "critical",
        summary: "CommitFailedException after 4 retries in job 4f2a",
        evidence: [
          {
            source: "flink",
            detail: "CommitFailedException: Cannot commit db.events: base metadata location changed",
          },
        ],
      },
      {
        id: "rewrite-in-window",
        severity: "warning",
        summary: "3 replace snapshots since the writer's last success",
        evidence: [
          { source: "catalog", detail: "snapshot 5001 replace at 09:03 UTC by spark app-0412" },
          { source: "catalog", detail: "snapshot 5002 replace at 09:07 UTC by spark app-0412" },
        ],
      },
    ],
    nextStep: {
      id: "raise-commit-retries",
      playbook: "commit-conflict",
      summary: "Give the committer more attempts while compaction runs",
      change: {
        kind: "table-properties",
        table: "db.events",
        changes: [{ key: "commit.retry.num-retries", current: "4", proposed: "10" }],
      },
      automatic: true,
    },
    sources: {
      catalog: { status: "ok", latencyMs: 12 },
      flink: { status: "unavailable", error: "timed out after 5 s" },
      connect: { status: "not-configured" },
      prometheus: { status: "not-configured" },
    },
    ...overrides,
  });
}

function texts(blocks: KnownBlock[]): string[] {
  return blocks.flatMap((b) => {
    if (b.type === "section") return [b.text?.text ?? ""];
    if (b.type === "context") return b.elements.map((e) => ("text" in e ? e.text : ""));
    return [];
  });
}

function manyEvidence(count: number, padding = 0): Report {
  return report({
    findings: [
      {
        id: "competing-appends",
        severity: "warning",
        summary: "Appends from other writers",
        evidence: Array.from({ length: count }, (_, i) => ({
          source: "catalog" as const,
          detail: `snapshot ${900000 + i} append by writer-${i} at 09:${String(i % 60).padStart(2, "0")} UTC${" detail".repeat(padding)}`,
          data: {},
        })),
      },
    ],
  });
}

describe("renderDiagnosis", () => {
  it("names a source once when its error already names it (catalog-down-flink-failing)", () => {
    const error = "Iceberg REST catalog answered HTTP 503 to GET /v1/config: Slow down";
    const down = report({
      sources: {
        catalog: { status: "unavailable", error },
        flink: { status: "unavailable", error: "timed out after 5 s" },
        connect: { status: "not-configured" },
        prometheus: { status: "not-configured" },
      },
    });
    const joined = texts(renderDiagnosis(down, { evidenceRef: "inc-1|1" }).blocks).join("\n");
    expect(joined).toContain(`*Could not read:* ${error}; Flink REST API: timed out after 5 s`);
    expect(joined).not.toContain("Iceberg REST catalog: Iceberg REST catalog");
  });

  it("fits a phone screen: verdict, next step, at most three lines in words, what could not be read", () => {
    const { text, blocks } = renderDiagnosis(report(), { evidenceRef: "inc-1|1" });
    const all = texts(blocks);
    expect(text).toBe("db.events: commit conflict; next step: raise commit retries");
    expect(all[0]).toContain("*db.events: commit conflict*");
    expect(all[0]).toContain("CommitFailedException after 4 retries in job 4f2a");
    expect(all[1]).toBe("*Next step: raise commit retries* (proposed below)");
    const joined = all.join("\n");
    // The diff is shown once, in the proposal; the cause is said once, on the root card above.
    expect(joined).not.toContain("commit.retry.num-retries: 4 → 10");
    expect(joined).not.toContain("3 replace snapshots since the writer's last success");
    expect(joined).toMatch(/^• /m);
    expect(joined).toContain("*Could not read:* Flink REST API: timed out after 5 s");
    expect(joined).toContain("not configured: Kafka Connect REST API, Prometheus");
    expect(joined.indexOf("Next step")).toBeLessThan(joined.indexOf("• "));
    expect(JSON.stringify(blocks)).toContain('"action_id":"evidence_show_all"');
    expect(joined.length).toBeLessThan(900);
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });

  it("shows three lines at most and keeps code out of them; the rest is behind Show all evidence", () => {
    const five = report({
      findings: Array.from({ length: 5 }, (_, i) => ({
        id: i === 0 ? ("commit-conflict" as const) : ("frequent-commits" as const),
        severity: "warning" as const,
        summary: `finding ${i} in words`,
        evidence: [{ source: "catalog" as const, detail: `snapshot ${i}`, data: {} }],
      })),
    });
    const cut = renderDiagnosis(five, { evidenceRef: "inc-1|2" });
    const joined = texts(cut.blocks).join("\n");
    expect(joined.match(/^• /gm)).toHaveLength(3);
    const actions = cut.blocks.filter((b) => b.type === "actions");
    expect(JSON.stringify(actions)).toContain('"action_id":"evidence_show_all"');
    expect(JSON.stringify(actions)).toContain('"value":"inc-1|2"');
    expect(checkBlocks(cut.blocks, "message")).toEqual([]);
    // No reference to open the modal with: the message says how much the report holds.
    expect(texts(renderDiagnosis(manyEvidence(20)).blocks)).toContain("20 pieces of evidence in the report");
    const stack = report({
      findings: [
        {
          id: "commit-conflict",
          severity: "critical",
          summary: "CommitFailedException after 4 retries",
          evidence: [
            {
              source: "flink",
              detail: "```org.apache.iceberg.CommitFailedException\n\tat a.b(C.java:1)```",
              data: {},
            },
            {
              source: "catalog",
              detail: `Newest snapshot ${"9".repeat(19)} ${"word ".repeat(60)}`,
              data: {},
            },
          ],
        },
      ],
    });
    const plain = texts(renderDiagnosis(stack).blocks).join("\n");
    expect(plain).not.toContain("```");
    // A line too long for the first screen is left whole for the modal, never cut mid-fact.
    expect(plain).not.toContain("Newest snapshot");
    expect(plain).not.toContain("…");
    expect(JSON.stringify(renderEvidenceModal(stack).blocks)).toContain(`${"word ".repeat(59)}word`);

    const modal = renderEvidenceModal(manyEvidence(500, 50));
    expect(modal.title.text).toBe("All evidence");
    expect(modal.blocks.length).toBeLessThanOrEqual(100);
    expect(checkView(modal, "modal")).toEqual([]);
    const all = JSON.stringify(modal.blocks);
    const listed = all.match(/• /g)?.length ?? 0;
    const more = /… and (\d+) more lines/.exec(all);
    expect(listed + Number(more?.[1] ?? 0)).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(renderEvidenceModal(manyEvidence(20)).blocks).match(/• /g)).toHaveLength(20);
  });

  it("writes evidence times as Slack date tokens, never ISO stamps", () => {
    const withStamp = report({
      findings: [
        {
          id: "commit-conflict",
          severity: "critical",
          summary: "CommitFailedException after 4 retries",
          evidence: [
            { source: "flink", detail: "CommitFailedException at 2026-11-29T09:03:20.941Z", data: {} },
          ],
        },
      ],
    });
    const joined = texts(renderDiagnosis(withStamp).blocks).join("\n");
    expect(joined).toContain("at <!date^1795943000^{time}|09:03 UTC>");
    expect(joined).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it("keeps a 500-item report small: three lines, one button", () => {
    const { blocks } = renderDiagnosis(manyEvidence(500, 50), { maxEvidence: 10_000, evidenceRef: "i|1" });
    expect(blocks.length).toBeLessThanOrEqual(10);
    for (const t of texts(blocks)) expect(t.length).toBeLessThanOrEqual(3000);
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });

  it("escapes text that came from outside so it cannot mention or link", () => {
    const hostile = report({
      table: "db.<!channel>",
      findings: [
        {
          id: "commit-conflict",
          severity: "critical",
          summary: "ping <!here> & <https://evil.example|docs>",
          evidence: [{ source: "flink", detail: "CommitFailedException <@U999>", data: {} }],
        },
      ],
    });
    const { text, blocks } = renderDiagnosis(hostile);
    const json = JSON.stringify(blocks) + text;
    expect(json).not.toMatch(/<!channel>|<!here>|<@U999>|<https:/);
    expect(json).toContain("&lt;!here&gt; &amp; &lt;https[:]//evil[.]example|docs&gt;");
  });

  it("leaves a manual statement to the proposal: the diagnosis names the step and who acts", () => {
    const manual = report({
      nextStep: {
        id: "move-compaction-off-hot-partitions",
        playbook: "commit-conflict",
        summary: "Compact only partitions the writer has left",
        change: {
          kind: "manual",
          statement:
            "CALL cat.system.rewrite_data_files(table => 'db.events', where => 'day < \"2026-11-29\"')",
          language: "sql",
          checklist: ["pause the compaction schedule"],
        },
        automatic: false,
      },
    });
    const step = texts(renderDiagnosis(manual).blocks)[1] ?? "";
    expect(step).toContain("a person makes this change");
    expect(JSON.stringify(renderDiagnosis(manual).blocks)).not.toContain("rewrite_data_files");
  });

  it("says plainly when the table is healthy", () => {
    const { text, blocks } = renderDiagnosis(report({ verdict: "healthy", findings: [], nextStep: null }));
    expect(text).toBe("db.events: healthy");
    const joined = texts(blocks).join("\n");
    expect(joined).toContain(":white_check_mark: *db.events: healthy*");
    expect(joined).toContain("*Next step:* none");
    expect(joined).toContain("*Evidence:* none was found.");
  });

  it("shows fewer evidence lines rather than cutting one mid-fact", () => {
    // Three lines of 200 characters do not fit one screen: the first is shown whole, the rest wait.
    const details = [1, 2, 3].map((i) => `snapshot 90000${i} append by writer-${i}${" detail".repeat(28)}`);
    const long = report({
      findings: [
        {
          id: "commit-conflict",
          severity: "critical",
          summary: "CommitFailedException after 4 retries",
          evidence: details.map((detail) => ({ source: "catalog" as const, detail, data: {} })),
        },
      ],
    });
    expect(details.every((d) => d.length > 180)).toBe(true);
    const lines = texts(renderDiagnosis(long, { evidenceRef: "inc-1|1" }).blocks)
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("• "))
      .map((l) => l.slice(2));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(3);
    for (const line of lines) expect(details).toContain(line);
  });

  it("says a quiet writer is quiet as expected, never that it commits normally", () => {
    const healthy = (findings: Report["findings"]) =>
      texts(renderDiagnosis(report({ verdict: "healthy", findings, nextStep: null })).blocks).join("\n");
    const quiet = healthy([
      {
        id: "healthy",
        severity: "info",
        summary:
          "Flink job orders (0b1c…) is quiet as expected (it was quiet at this time on each of the last 3 days) and no commit failure is visible; the next commit is due around 2026-11-29T11:00:00Z",
        evidence: [
          {
            source: "flink",
            detail: "Flink job orders (0b1c…) is RUNNING with no commit exceptions",
            data: {},
          },
        ],
      },
      {
        id: "writer-idle",
        severity: "info",
        summary:
          "Flink job orders (0b1c…) is quiet for 2 h, as it was at this time on each of the last 3 days",
        evidence: [
          {
            source: "catalog",
            detail: "No writer snapshot over the same hours on each of the last 3 days",
            data: {},
          },
        ],
      },
    ]);
    expect(quiet).toContain("*Next step:* none; the writer is quiet as expected.");
    expect(quiet).not.toContain("committing normally");
    expect(quiet).toMatch(/the next commit is due around <!date\^\d+\^\{time\}\|11:00 UTC>/);
    const noWriter = healthy([
      {
        id: "healthy",
        severity: "info",
        summary: "No streaming writer is attached to this table and no commit failure is visible",
        evidence: [{ source: "catalog", detail: "No Flink or Kafka Connect writer found", data: {} }],
      },
    ]);
    expect(noWriter).toContain("*Next step:* none; nothing is failing.");
  });
});
