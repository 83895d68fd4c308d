// `diagnose --chart FILE` against the simulated lakehouse: the picture is written, the text names
// it, the Markdown report embeds it, and a picture that cannot be written costs nothing else.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/run-cli.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { decodePng } from "../../support/png.js";

let lake: Lakehouse;
let dir: string;
beforeAll(async () => {
  lake = await startLakehouse({ scenario: "competing-appends" });
  dir = mkdtempSync(path.join(tmpdir(), "cli-chart-"));
});
afterAll(async () => {
  await lake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function diagnose(extra: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    ["diagnose", "db.events", "--catalog-url", lake.urls.catalog, "--flink-url", lake.urls.flink, ...extra],
    {
      env: {},
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      now: () => lake.clock.now(),
    },
  );
  return { code, stdout, stderr };
}

describe("diagnose --chart", () => {
  it("writes the commit timeline and names it under the text report", async () => {
    const file = path.join(dir, "timeline.png");
    const ran = await diagnose(["--chart", file]);
    expect(ran.code, ran.stderr).toBe(1);
    const png = decodePng(readFileSync(file));
    expect(ran.stdout).toContain(`Commit timeline: ${file} (${png.width}×${png.height} px)`);
    expect(ran.stdout).toMatch(/commit conflict/i);
  });

  it("embeds the picture in the Markdown report with its description", async () => {
    const file = path.join(dir, "report timeline.png");
    const ran = await diagnose(["--chart", file, "--format", "markdown"]);
    expect(ran.code, ran.stderr).toBe(1);
    const image = /!\[(Commits to db\.events from [^\]]+)\]\(([^)]+)\)/.exec(ran.stdout);
    expect(image?.[1]).toMatch(/The writer, Flink events-ingest, last committed at \d\d:\d\d/);
    expect(decodeURI(image![2]!)).toBe(file);
    expect(decodePng(readFileSync(file)).width).toBeGreaterThan(800);
  });

  it("still prints the diagnosis when the picture cannot be written", async () => {
    const file = path.join(dir, "no-such-dir", "timeline.png");
    const ran = await diagnose(["--chart", file]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/commit conflict/i);
    expect(ran.stdout).not.toContain("Commit timeline:");
    expect(ran.stderr).toContain(`The commit timeline was not written to ${file}`);
  });

  it("is refused for audit", async () => {
    let stderr = "";
    const code = await runCli(
      ["audit", "db.events", "--catalog-url", lake.urls.catalog, "--chart", "x.png"],
      {
        env: {},
        stdout: { write: () => true },
        stderr: { write: (chunk: string) => (stderr += chunk) },
      },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("--chart is for diagnose only");
  });
});
