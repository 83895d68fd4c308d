// One version per release and its notes: package.json's version is the CHANGELOG's newest entry,
// with upgrade and rollback notes, and the compatibility table's row for it says what this code
// writes and reads (each stored format, each queue's job kinds). A format or a job kind changed
// without its line in the CHANGELOG fails here.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SweepControlJobSchema, SweepTaskSchema } from "../../src/adapters/queue/sweep-queue.js";
import { OUTBOX_FORMAT } from "../../src/adapters/slack/outbox/outbox.js";
import { INCIDENT_FORMAT } from "../../src/adapters/store/incident-store.js";
import { REPORT_FORMAT } from "../../src/adapters/store/report-format.js";
import { HISTORY_FORMAT } from "../../src/core/history/record.js";
import { DiagnoseJobSchema, RemediationJobSchema, SlackJobSchema } from "../../src/core/jobs.js";
import { WALK_FORMAT } from "../../src/core/remediation/record-format.js";

const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const changelog = readFileSync("CHANGELOG.md", "utf8");

/** The rows of the markdown table that follows `header` (a line starting with it). */
function table(header: string): string[][] {
  const lines = changelog.split("\n");
  const start = lines.findIndex((l) => l.startsWith(header));
  expect(start, header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows.filter((row) => !row.every((c) => /^-+$/.test(c)));
}

const kinds = (schema: { options: ReadonlyArray<{ shape: { kind: { value: string } } }> }) =>
  schema.options.map((o) => o.shape.kind.value).sort();

describe("CHANGELOG.md", () => {
  it("has this release (package.json's version) as its newest entry, with upgrade and rollback notes", () => {
    const releases = [...changelog.matchAll(/^## (\d+\.\d+\.\d+)$/gm)].map((m) => m[1]);
    expect(releases[0]).toBe(version);
    const entry = changelog.slice(changelog.indexOf(`## ${version}`), changelog.indexOf(`## ${releases[1]}`));
    expect(entry).toMatch(/^### Upgrading from /m);
    expect(entry).toMatch(/^### Rolling back to /m);
  });

  it("says which format of each stored record this release writes and reads", () => {
    const [header, ...rows] = table("| release | incident hash");
    const row = rows.find((r) => r[0] === version);
    expect(row, `a row for ${version}`).toBeDefined();
    const cell = (column: string) => row?.[header?.indexOf(column) ?? -1];
    const formats: Record<string, number> = {
      "incident hash": INCIDENT_FORMAT,
      walk: WALK_FORMAT,
      "report and timeline": REPORT_FORMAT,
      "history record": HISTORY_FORMAT,
      "Slack outbox entry": OUTBOX_FORMAT,
    };
    for (const [column, format] of Object.entries(formats)) {
      // Its own format and at least the one before it (format 1 is the first).
      if (format === 1) {
        expect(cell(column), column).toBe("writes 1, reads 1");
        continue;
      }
      const reads = new RegExp(`^writes ${format}, reads (\\d+)–${format}$`).exec(cell(column) ?? "");
      expect(reads, `${column}: ${cell(column)}`).not.toBeNull();
      expect(Number(reads?.[1]), column).toBeLessThan(format);
    }
  });

  it("lists the job kinds each queue of this release takes", () => {
    const [header, ...rows] = table("| queue |");
    const at = header?.indexOf(version) ?? -1;
    expect(at, `a column for ${version}`).toBeGreaterThan(0);
    const listed = Object.fromEntries(rows.map((r) => [r[0], (r[at] ?? "").split(", ").sort()]));
    expect(listed).toEqual({
      diagnose: kinds(DiagnoseJobSchema),
      slack: kinds(SlackJobSchema),
      remediation: kinds(RemediationJobSchema),
      sweep: kinds(SweepControlJobSchema),
      "sweep-catalog": kinds(SweepTaskSchema),
    });
  });
});
