// `iceberg-bot sweep` in-process against the simulated lakehouse: a catalog of nine tables in
// nested namespaces, listed two to a page, ranked as the scenario's expect block says.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../../src/cli/io.js";
import { runCli } from "../../../src/cli/run-cli.js";
import type { SweepReport } from "../../../src/services/sweep/report.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { loadScenario } from "../../../src/sim/scenarios.js";

let lake: Lakehouse;
beforeAll(async () => {
  lake = await startLakehouse({ scenario: "sweep-catalog" });
});
afterAll(async () => {
  await lake?.close();
});

async function run(argv: string[], io: Partial<CliIo> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env: {},
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    now: () => lake.clock.now(),
    ...io,
  });
  return { code, stdout, stderr };
}

describe("iceberg-bot sweep", () => {
  it("ranks every table of a paginated, nested catalog as the scenario expects, and exits 1", async () => {
    const before = lake.requests.length;
    const ran = await run([
      "sweep",
      "--catalog-url",
      lake.urls.catalog,
      "--connect-url",
      lake.urls.connect,
      "--format",
      "json",
    ]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(1);
    const report = JSON.parse(ran.stdout) as SweepReport;
    const expected = loadScenario("sweep-catalog").expect.ranking;
    expect(report.ranking.map((t) => t.table)).toEqual(expected);
    expect(report.tables).toBe(9);
    expect(report.failingTables).toBe(3);
    expect(report.unhealthyNow).toBe(1);
    // Failing right now first, then the lowest score.
    expect(report.ranking[0]).toMatchObject({ table: "sales.payments", verdict: "commit-failing" });
    expect(report.ranking[1]).toMatchObject({
      table: "sales.orders",
      failing: expect.arrayContaining([
        { id: "retry-budget", status: "fail" },
        { id: "delete-file-compaction", status: "fail" },
      ]),
    });
    expect(report.ranking[1]!.fix).toMatch(/^ALTER TABLE sales\.orders SET TBLPROPERTIES \(.*\);$/);
    expect(report.countsByCheck["target-file-size"]).toEqual({ fail: 2, warn: 0 });
    // Only paging reaches the second page of namespaces and of analytics.web's tables.
    const listings = lake.requests.slice(before).filter((r) => r.service === "catalog" && r.method === "GET");
    const followed = listings.filter(
      (r) => typeof r.query.pageToken === "string" && r.query.pageToken !== "",
    );
    expect(followed.map((r) => r.path)).toEqual(
      expect.arrayContaining(["/v1/namespaces", "/v1/namespaces/analytics%1Fweb/tables"]),
    );
  });

  it("keeps to one namespace and the ones below it, and cuts the list with --limit", async () => {
    const ran = await run([
      "sweep",
      "--catalog-url",
      lake.urls.catalog,
      "--namespace",
      "analytics",
      "--limit",
      "2",
      "--concurrency",
      "2",
      "--format",
      "json",
    ]);
    const report = JSON.parse(ran.stdout) as SweepReport;
    expect(report.tables).toBe(4);
    expect(report.namespace).toBe("analytics");
    expect(report.ranking.map((t) => t.table)).toEqual(["analytics.web.events", "analytics.web.sessions"]);
  });

  it("exits 0 when no check fails, and renders text and markdown", async () => {
    const text = await run(["sweep", "--catalog-url", lake.urls.catalog, "--namespace", "db"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Sweep under db: 2 tables, 0 with failing checks/);
    const md = await run([
      "sweep",
      "--catalog-url",
      lake.urls.catalog,
      "--format",
      "markdown",
      "--limit",
      "1",
    ]);
    expect(md.code).toBe(1);
    // Without Kafka Connect nothing is seen failing now: the lowest score leads.
    expect(md.stdout).toContain("| 1 | 62 | `sales.orders` | **retry-budget**, **delete-file-compaction**");
    expect(md.stdout).not.toContain("analytics.web.events");
    // With it, the markdown lists the table failing now first, and says so.
    const withConnect = await run([
      "sweep",
      "--catalog-url",
      lake.urls.catalog,
      "--connect-url",
      lake.urls.connect,
      "--format",
      "markdown",
      "--limit",
      "1",
    ]);
    expect(withConnect.stdout).toMatch(
      /\| 1 \| \d+ \| `sales\.payments` \| \*\*failing now: `commit-failing`\*\*/,
    );
    expect(withConnect.stdout).not.toContain("`sales.orders`");
  });

  it("the simulated catalog pages only when asked, and refuses a token it did not hand out", async () => {
    const all = (await (await fetch(`${lake.urls.catalog}/v1/namespaces`)).json()) as Record<string, unknown>;
    expect(all).toEqual({ namespaces: [["sales"], ["analytics"], ["db"], ["staging"]] });
    const first = (await (await fetch(`${lake.urls.catalog}/v1/namespaces?pageToken=`)).json()) as Record<
      string,
      unknown
    >;
    expect(first.namespaces).toEqual([["sales"], ["analytics"]]);
    expect(typeof first["next-page-token"]).toBe("string");
    expect((await fetch(`${lake.urls.catalog}/v1/namespaces?pageToken=bogus`)).status).toBe(400);
  });

  it("exits 2 on bad usage and 3 when the catalog does not answer", async () => {
    expect((await run(["sweep", "--catalog-url", lake.urls.catalog, "--limit", "0"])).code).toBe(2);
    expect((await run(["sweep", "--catalog-url", lake.urls.catalog, "--format", "yaml"])).code).toBe(2);
    expect((await run(["sweep"])).code).toBe(2);
    lake.faults.inject({ service: "catalog", path: /^\/v1\//, kind: "status", status: 503 });
    try {
      const down = await run(["sweep", "--catalog-url", lake.urls.catalog]);
      expect(down.code).toBe(3);
      expect(down.stderr).toMatch(/^error: .*503/m);
    } finally {
      lake.faults.clear();
    }
  });
});
