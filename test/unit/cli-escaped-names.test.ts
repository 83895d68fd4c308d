// A name with a bidi override or a control character (from a catalog, from a person's typing)
// reaches the terminal as a visible escape, never raw: a right-to-left override could make one
// table read as another.

import { describe, expect, it } from "vitest";
import { renderSweepText } from "../../src/adapters/render/sweep-text.js";
import { runCli } from "../../src/cli/run-cli.js";
import { sweepReport } from "../../src/services/sweep/report.js";

const RLO = "\u202e";
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u001b]/;

describe("names with control or bidi characters in the CLI", () => {
  it("shows them escaped in the sweep's ranking and errors", () => {
    const report = sweepReport({
      startedAtMs: 0,
      finishedAtMs: 1,
      graded: [
        { table: `sales.${RLO}sredro`, score: 40, checks: { "retry-budget": "fail" }, verdict: "healthy" },
      ],
      errors: [{ table: `db.x${RLO}y`, error: `load failed for db.x${RLO}y\u001b[2J` }],
    });
    const text = renderSweepText(report, { color: false });
    expect(text).not.toMatch(RAW);
    expect(text).toContain("sales.\\u202esredro");
  });

  it("shows them escaped in an error message", async () => {
    let stderr = "";
    const code = await runCli(["diagnose", `db.ev${RLO}ents\u001b[31m`], {
      env: {},
      stdout: { write: () => {} },
      stderr: { write: (chunk: string) => (stderr += chunk) },
    });
    expect(code).toBe(2);
    expect(stderr).not.toMatch(RAW);
    expect(stderr).toContain("\\u202e");
  });
});
