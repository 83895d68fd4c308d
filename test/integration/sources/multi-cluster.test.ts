// The platform as it runs: two Flink clusters, two Connect clusters and two catalogs served by the
// simulator over loopback. The bot reads all of them at once, finds the writer on the second Flink
// cluster, names it, and sends the fix to the second catalog (the first does not know the table).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { renderReportText } from "../../../src/adapters/render/report.js";
import { renderChange } from "../../../src/adapters/slack/render/change.js";
import { renderDiagnosis } from "../../../src/adapters/slack/render/diagnosis.js";
import { renderSweepDigest } from "../../../src/adapters/slack/render/sweep-digest.js";
import { loadConfig } from "../../../src/config.js";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import { ReportSchema } from "../../../src/core/report/schema.js";
import type { FlinkSourceProvider, FlinkSourceSpec } from "../../../src/core/sources/model.js";
import { DigestBuilder } from "../../../src/core/sweep/digest.js";
import { parseTableName } from "../../../src/core/table-name.js";
import { investigate } from "../../../src/services/investigate/investigate.js";
import { applyChange } from "../../../src/services/remediation/apply-change.js";
import { runSweep } from "../../../src/services/sweep/run-sweep.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { PLAYBOOKS } from "../../support/playbooks.js";
import { HAPPY_PATH_TIMEOUT_MS } from "../../support/poll.js";

let lakehouse: Lakehouse;
beforeAll(async () => {
  lakehouse = await startLakehouse({ scenario: "multi-cluster-platform" });
});
afterAll(async () => {
  await lakehouse?.close();
});

const hostOf = (url: string) => new URL(url).host;

describe("many Flink clusters, Connect clusters and catalogs", () => {
  it("serves each named cluster and catalog on its own server, declared in BOT_CONFIG", () => {
    expect(Object.keys(lakehouse.named.flink)).toEqual(["flink-us", "flink-eu"]);
    expect(Object.keys(lakehouse.named.connect)).toEqual(["connect-us", "connect-eu"]);
    expect(Object.keys(lakehouse.named.catalogs)).toEqual(["lake-us", "lake-eu"]);
    const config = loadConfig(lakehouse.env());
    expect(config.sources.flink.map((s) => s.name)).toEqual(["flink-us", "flink-eu"]);
    expect(config.sources.catalogs.find((c) => c.name === "lake-eu")?.tables).toEqual(["sales.orders"]);
  });

  it("finds the writer on the second Flink cluster and names it in the report", async () => {
    const config = loadConfig(lakehouse.env());
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const now = lakehouse.clock.now();
    const evidence = await investigate(ports, { table: "sales.orders", timeoutMs: 5000 }, () => now);
    expect(evidence.catalogName).toBe("lake-eu");
    expect(evidence.flink?.writer?.job).toMatchObject({ name: "orders-ingest", source: "flink-eu" });
    // Both clusters were listed: the other cluster's job is there, tagged with its own.
    expect(evidence.flink?.jobs.map((j) => `${j.name}@${j.source}`).sort()).toEqual([
      "audit-ingest@flink-us",
      "orders-ingest@flink-eu",
    ]);

    const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
    expect(ReportSchema.safeParse(report).success).toBe(true);
    expect(report.verdict).toBe("commit-conflict");
    expect(report.catalogSource).toBe("lake-eu");
    expect(report.writer).toMatchObject({ kind: "flink", name: "orders-ingest", cluster: "flink-eu" });
    expect(JSON.stringify(report.findings)).toContain("orders-ingest (9e3b…) on flink-eu");

    // Each Connect cluster was asked for its connectors.
    const connectHosts = new Set(
      lakehouse.requests.filter((r) => r.service === "connect").map((r) => r.headers.host),
    );
    expect(connectHosts).toEqual(new Set(Object.values(lakehouse.named.connect).map(hostOf)));
  });

  it("still finds the writer when another Flink cluster does not answer", async () => {
    const env = lakehouse.env();
    // flink-us moves to a port nothing listens on.
    const config = loadConfig({
      ...env,
      BOT_CONFIG: (env.BOT_CONFIG as string).replace(
        lakehouse.named.flink["flink-us"] as string,
        "http://127.0.0.1:9",
      ),
    });
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const now = lakehouse.clock.now();
    const evidence = await investigate(ports, { table: "sales.orders", timeoutMs: 5000 }, () => now);
    expect(evidence.sources.flink.status).toBe("ok");
    expect(evidence.flink?.writer?.job.source).toBe("flink-eu");
    // The silent cluster is named, not dropped: its jobs (a writer, perhaps) are missing.
    expect(evidence.sources.flink.gaps?.map((g) => g.source)).toEqual(["flink-us"]);
    expect(evidence.sources.flink.gaps?.[0]?.error).toMatch(/127\.0\.0\.1:9/);
    expect(evidence.sources.connect.gaps).toBeUndefined();

    const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
    expect(ReportSchema.safeParse(report).success).toBe(true);
    expect(report.sources.flink).toMatchObject({ status: "ok", gaps: [{ source: "flink-us" }] });
    expect(renderReportText(report, { color: false })).toMatch(
      /Could not read:\n {2}Flink REST API \(flink-us\): /,
    );
    expect(JSON.stringify(renderDiagnosis(report).blocks)).toMatch(
      /Could not read:\* Flink REST API \(flink-us\): /,
    );
  });

  it("still reads the writer when another Flink cluster never answers, and names it as a gap", async () => {
    // The per-request timeout is the whole deadline, so only the listing's share of it can let the
    // writer be read in time: without it the silent cluster would take all of Flink down with it.
    // Long enough for a loaded machine to read the writer in what the listing leaves of it.
    const deadlineMs = 10_000;
    const config = loadConfig(lakehouse.env());
    const ports = createEvidencePorts(config, { timeoutMs: deadlineMs });
    const hang = lakehouse.faults.inject({ service: "flink", server: "flink-us", path: "^/", kind: "hang" });
    try {
      const sent = lakehouse.requests.length;
      const now = lakehouse.clock.now();
      const evidence = await investigate(ports, { table: "sales.orders", timeoutMs: deadlineMs }, () => now);
      expect(evidence.sources.flink.status).toBe("ok");
      expect(evidence.flink?.writer?.job).toMatchObject({ name: "orders-ingest", source: "flink-eu" });
      expect(evidence.sources.flink.gaps?.map((g) => g.source)).toEqual(["flink-us"]);
      expect(evidence.sources.flink.gaps?.[0]?.error).toMatch(/no complete answer within/);
      // The fault hit flink-us alone: flink-eu answered the listing and the writer's reads.
      const flinkEu = hostOf(lakehouse.named.flink["flink-eu"] as string);
      const served = lakehouse.requests.slice(sent).filter((r) => r.headers.host === flinkEu);
      expect(served.some((r) => r.path === "/jobs/overview")).toBe(true);
    } finally {
      lakehouse.faults.clear(hang);
    }
  });

  it("names a Connect cluster that does not answer while the other does", async () => {
    const env = lakehouse.env();
    const config = loadConfig({
      ...env,
      BOT_CONFIG: (env.BOT_CONFIG as string).replace(
        lakehouse.named.connect["connect-us"] as string,
        "http://127.0.0.1:9",
      ),
    });
    const ports = createEvidencePorts(config, { timeoutMs: HAPPY_PATH_TIMEOUT_MS });
    const now = lakehouse.clock.now();
    const evidence = await investigate(
      ports,
      { table: "sales.orders", timeoutMs: HAPPY_PATH_TIMEOUT_MS },
      () => now,
    );
    expect(evidence.sources.connect).toMatchObject({ status: "ok", gaps: [{ source: "connect-us" }] });
    const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
    expect(renderReportText(report, { color: false })).toContain("Kafka Connect REST API (connect-us): ");
  });

  it("applies the fix in the catalog holding the table, and the writer recovers", async () => {
    const config = loadConfig(lakehouse.env());
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const ref = parseTableName("sales.orders");
    const before = await ports.catalog!.loadTable(ref);
    const sent = lakehouse.requests.length;
    await ports.catalog!.commitProperties(ref, {
      expectedUuid: before.uuid,
      set: { "commit.retry.num-retries": "10" },
      remove: [],
    });
    const commits = lakehouse.requests.slice(sent).filter((r) => r.method === "POST");
    expect(commits.map((r) => r.headers.host)).toEqual([
      hostOf(lakehouse.named.catalogs["lake-eu"] as string),
    ]);
    // The first catalog does not serve the table at all: only the routing reached it.
    expect(ports.catalogs?.byName("lake-us")).toBeDefined();
    await expect(ports.catalogs!.byName("lake-us")!.port.loadTable(ref)).rejects.toMatchObject({
      details: { status: 404 },
    });

    lakehouse.advance(15 * 60_000);
    const writer = lakehouse.state().writers.find((w) => w.committer.includes("9e3b7a1c"));
    expect(writer?.recovered).toBe(true);
  });
});

describe("remediation through the source the evidence came from", () => {
  // A platform of its own: the tests above already fixed and recovered the first one.
  let fresh: Lakehouse;
  beforeAll(async () => {
    fresh = await startLakehouse({ scenario: "multi-cluster-platform" });
  });
  afterAll(async () => {
    await fresh?.close();
  });

  it("proposes the fix in the second catalog, names it in the form, and applies it there", async () => {
    const config = loadConfig(fresh.env());
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const now = fresh.clock.now();
    const evidence = await investigate(ports, { table: "sales.orders", timeoutMs: 5000 }, () => now);
    const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
    const change = report.nextStep?.change;
    expect(change).toMatchObject({
      kind: "table-properties",
      table: "sales.orders",
      catalogSource: "lake-eu",
    });
    if (change?.kind !== "table-properties") throw new Error("expected a table-properties change");
    expect(renderChange(change)).toContain("Table properties of `sales.orders` in catalog `lake-eu`");

    const sent = fresh.requests.length;
    const outcome = await applyChange(
      ports,
      { ...change, changes: [{ key: "commit.retry.num-retries", current: null, proposed: "12" }] },
      { table: parseTableName("sales.orders") },
    );
    expect(outcome.status).toBe("applied");
    expect(outcome.status === "applied" && outcome.detail).toContain("on sales.orders in catalog lake-eu");
    const hosts = new Set(fresh.requests.slice(sent).map((r) => r.headers.host));
    expect(hosts).toEqual(new Set([hostOf(fresh.named.catalogs["lake-eu"] as string)]));
  });

  it("restarts a connector on the Connect cluster named in the change", async () => {
    const ports = createEvidencePorts(loadConfig(fresh.env()), { timeoutMs: 5000 });
    const sent = fresh.requests.length;
    const outcome = await applyChange(
      ports,
      {
        kind: "connector-restart",
        connector: "inventory-sink",
        cluster: "connect-eu",
        includeTasks: true,
        onlyFailed: false,
      },
      { table: parseTableName("sales.inventory") },
    );
    expect(outcome.status).toBe("applied");
    const restarts = fresh.requests.slice(sent).filter((r) => r.method === "POST");
    expect(restarts.map((r) => r.headers.host)).toEqual([
      hostOf(fresh.named.connect["connect-eu"] as string),
    ]);
    // The other cluster does not run it: naming it there is a clear refusal, not a silent miss.
    const elsewhere = await applyChange(
      ports,
      {
        kind: "connector-restart",
        connector: "inventory-sink",
        cluster: "connect-us",
        includeTasks: true,
        onlyFailed: false,
      },
      { table: parseTableName("sales.inventory") },
    );
    expect(elsewhere.status).toBe("not-applied");
  });
});

describe("the sweep covers every catalog", () => {
  let platform: Lakehouse;
  beforeAll(async () => {
    platform = await startLakehouse({ scenario: "multi-cluster-platform" });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it("walks each named catalog, grades each table in its own, and the digest groups by catalog", async () => {
    const config = loadConfig(platform.env());
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const now = platform.clock.now();
    const report = await runSweep(ports, () => now, { playbooks: PLAYBOOKS, bot: config.bot });
    const graded = report.ranking.map((t) => `${t.table}@${t.catalog}`).sort();
    expect(graded).toEqual(["ops.audit_log@lake-us", "sales.orders@lake-eu"]);
    // Each catalog's server was asked for its own listing.
    const listingHosts = new Set(
      platform.requests.filter((r) => r.path.endsWith("/namespaces")).map((r) => r.headers.host),
    );
    expect(listingHosts).toEqual(new Set(Object.values(platform.named.catalogs).map(hostOf)));

    const builder = new DigestBuilder({ sweepId: "s1", startedAtMs: now, hasPrevious: false });
    for (const t of report.ranking) builder.add({ kind: "health", ...t });
    const digest = builder.finish(now);
    expect(digest.byCatalog?.map((c) => [c.catalog, c.tables, c.unhealthyNow])).toEqual(
      expect.arrayContaining([
        ["lake-eu", 1, 1],
        ["lake-us", 1, 0],
      ]),
    );
    const text = JSON.stringify(renderSweepDigest(digest).blocks);
    expect(text).toContain("*Catalog `lake-eu`:* 1 tables");
    // The failing table is listed under its catalog's line.
    expect(text.indexOf("sales.orders")).toBeGreaterThan(text.indexOf("Catalog `lake-eu`"));
  });

  it("sweeps only the catalogs sweep.catalogs names, and refuses an unknown one at start", async () => {
    const env = platform.env();
    const config = loadConfig({ ...env, BOT_CONFIG: `${env.BOT_CONFIG}sweep:\n  catalogs: [lake-eu]\n` });
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const now = platform.clock.now();
    const report = await runSweep(ports, () => now, { playbooks: PLAYBOOKS, bot: config.bot });
    expect(report.ranking.map((t) => t.table)).toEqual(["sales.orders"]);
    expect(() =>
      loadConfig({ ...env, BOT_CONFIG: `${env.BOT_CONFIG}sweep:\n  catalogs: [lake-xx]\n` }),
    ).toThrow(/sweep\.catalogs\.0: no catalog is named lake-xx \(known: lake-us, lake-eu\)/);
  });
});

describe("Flink sources from discovery", () => {
  it("reads the sources a provider yields, asked again on every listing", async () => {
    const config = loadConfig({ ICEBERG_CATALOG_URL: lakehouse.named.catalogs["lake-eu"] as string });
    let listed: FlinkSourceSpec[] = [
      {
        name: "orders-ingest",
        url: lakehouse.named.flink["flink-eu"] as string,
        auth: { kind: "none" },
        origin: "discovered",
      },
    ];
    const provider: FlinkSourceProvider = { name: "kubernetes", list: async () => listed };
    const ports = createEvidencePorts(config, { timeoutMs: 5000, flinkProviders: [provider] });
    expect((await ports.flink!.listJobs()).map((j) => `${j.name}@${j.source}`)).toEqual([
      "orders-ingest@orders-ingest",
    ]);

    // A deployment appears: the next listing reads it too; one that is gone is no longer read.
    listed = [
      {
        name: "audit-ingest",
        url: lakehouse.named.flink["flink-us"] as string,
        auth: { kind: "none" },
        origin: "discovered",
      },
    ];
    expect((await ports.flink!.listJobs()).map((j) => `${j.name}@${j.source}`)).toEqual([
      "audit-ingest@audit-ingest",
    ]);
    const job = await ports.flink!.getJobEvidence(
      "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e",
      parseTableName("ops.audit_log"),
    );
    expect(job.job.source).toBe("audit-ingest");
  });
});
