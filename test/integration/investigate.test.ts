// investigate() and resolveTable() over the real clients and the simulated lakehouse: name
// forms, writer discovery, sources failing one at a time or all together.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { investigate } from "../../src/services/investigate/investigate.js";
import { resolveTable } from "../../src/services/investigate/resolve.js";
import type { EvidencePorts } from "../../src/services/ports.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { TableScenarioSchema } from "../../src/sim/scenario/schema.js";
import { loadScenario } from "../../src/sim/scenarios.js";
import { codedFailure, evidencePortsFor, useLakehouse } from "../support/lakehouse-ports.js";

const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const sim = useLakehouse(() => {
  const scenario = loadScenario("competing-appends");
  // Extra tables: a nested namespace, and two names that read the same once dots become "_".
  for (const name of ["analytics.web.page_views", "a.b_c", "a_b.c"]) {
    scenario.catalog.tables.push(TableScenarioSchema.parse({ name }));
  }
  return scenario;
});
const { agent } = sim;
let ports: EvidencePorts;

beforeAll(() => {
  ports = evidencePortsFor(sim.lakehouse, agent);
});

describe("resolveTable", () => {
  it.each([
    ["db.events", { namespace: ["db"], name: "events" }],
    ["iceberg.db.events", { namespace: ["db"], name: "events" }],
    ["db_events", { namespace: ["db"], name: "events" }],
    ["iceberg_db_events", { namespace: ["db"], name: "events" }],
    ["analytics.web.page_views", { namespace: ["analytics", "web"], name: "page_views" }],
    ["prod.analytics.web.page_views", { namespace: ["analytics", "web"], name: "page_views" }],
    ["iceberg_analytics_web_page_views", { namespace: ["analytics", "web"], name: "page_views" }],
  ])("resolves %s", async (input, expected) => {
    expect(await resolveTable(ports.catalog!, input)).toEqual(expected);
  });

  it("lists the candidates when a metric-style name fits several tables", async () => {
    const error = await codedFailure(resolveTable(ports.catalog!, "a_b_c"));
    expect(error.code).toBe(ErrorCode.TableAmbiguous);
    expect(error.message).toContain("a.b_c");
    expect(error.message).toContain("a_b.c");
  });

  it("names the catalog URL and the namespaces searched for an unknown table", async () => {
    const error = await codedFailure(resolveTable(ports.catalog!, "db.nope"));
    expect(error.code).toBe(ErrorCode.TableNotFound);
    expect(error.message).toContain(sim.lakehouse.urls.catalog);
    expect(error.message).toContain("namespaces searched: a, a_b, analytics, analytics.web, db");
    expect(error.hint).toContain("namespace.table");
  });

  it("suggests the closest table for a typo", async () => {
    const error = await codedFailure(resolveTable(ports.catalog!, "db.event"));
    expect(error.code).toBe(ErrorCode.TableNotFound);
    expect(error.message).toContain("Did you mean db.events?");
    expect(error.details?.suggestions).toEqual(["db.events"]);
  });

  it.each(["../etc/passwd", "db.ev'ents", "db%2Fevents", "db.\u0007x", "x".repeat(300)])(
    "refuses the hostile name %j before calling the catalog",
    async (input) => {
      const before = sim.lakehouse.requests.length;
      expect((await codedFailure(resolveTable(ports.catalog!, input))).code).toBe(ErrorCode.TableNameInvalid);
      expect(sim.lakehouse.requests.length).toBe(before);
    },
  );
});

describe("investigate", () => {
  const now = () => sim.lakehouse.clock.now();

  it("reads every source and discovers the Flink writer from snapshot summaries", async () => {
    const evidence = await investigate(ports, { table: "iceberg_db_events" }, now);
    expect(evidence.table).toEqual({ namespace: ["db"], name: "events" });
    expect(Object.values(evidence.sources).map((s) => s.status)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(evidence.catalog?.uuid).toBe("7d8f1c2e-5a4b-4c3d-9e8f-1a2b3c4d5e6f");
    expect(evidence.flink?.writerSource).toBe("discovered");
    expect(evidence.flink?.writer?.job.jobId).toBe(JOB);
    expect(evidence.connect).toBe(undefined);
    const history = evidence.flink?.writer?.committer?.elapsedSecondsHistory ?? [];
    expect(history.length).toBeGreaterThan(20);
    expect(history.at(-1)?.value).toBe(3300);
    expect(evidence.prometheus?.series.elapsedSecondsSinceLastSuccessfulCommit).toEqual(history);
  });

  it("keeps the evidence when Flink is down and says why", async () => {
    sim.lakehouse.faults.inject({ service: "flink", path: "^/", kind: "status", status: 502 });
    const evidence = await investigate(ports, { table: "db.events" }, now);
    expect(evidence.sources.flink).toMatchObject({
      status: "unavailable",
      errorCode: ErrorCode.SourceHttpStatus,
    });
    expect(evidence.sources.flink.error).toContain("HTTP 502");
    expect(evidence.flink).toBe(undefined);
    expect(evidence.sources.catalog.status).toBe("ok");
    expect(evidence.catalog?.snapshots.length).toBeGreaterThan(100);
  });

  it("cuts a hanging source at the investigation's own deadline", async () => {
    const slowPorts = evidencePortsFor(sim.lakehouse, agent, 60_000);
    sim.lakehouse.faults.inject({ service: "connect", path: "^/", kind: "hang" });
    // 5 s: room for the healthy sources on a busy machine; the hanging one would take the client's 60 s.
    const evidence = await investigate(slowPorts, { table: "db.events", timeoutMs: 5_000 }, now);
    // The investigation's deadline cut it, not the client's own: said by the error, not timed.
    expect(evidence.sources.connect).toMatchObject({
      status: "unavailable",
      errorCode: ErrorCode.SourceTimeout,
    });
    expect(evidence.sources.connect.error).toContain("within 5000 ms");
    expect(evidence.sources.flink.status).toBe("ok");
  });

  it("throws NoEvidence, with each source's reason, when nothing answers", async () => {
    for (const service of ["catalog", "flink", "connect", "prometheus"] as const) {
      sim.lakehouse.faults.inject({ service, path: "^/", kind: "status", status: 503 });
    }
    const error = await codedFailure(investigate(ports, { table: "db.events" }, now));
    expect(error.code).toBe(ErrorCode.NoEvidence);
    expect(error.message).toContain("catalog:");
    expect(error.message).toContain("prometheus:");
    const sources = error.details?.sources as Record<string, { status: string }>;
    expect(Object.values(sources).every((s) => s.status === "unavailable")).toBe(true);
  });

  it("throws TableNotFound for an unknown table instead of reporting a source failure", async () => {
    expect((await codedFailure(investigate(ports, { table: "db.nope" }, now))).code).toBe(
      ErrorCode.TableNotFound,
    );
  });

  it("uses a configured writer job and reports a job Flink does not know", async () => {
    const configured = await investigate(ports, { table: "db.events", flinkJob: JOB }, now);
    expect(configured.flink?.writerSource).toBe("configured");
    const missing = await investigate(ports, { table: "db.events", flinkJob: "0".repeat(32) }, now);
    expect(missing.sources.flink.status).toBe("unavailable");
    expect(missing.sources.flink.error).toContain("0".repeat(32));
  });

  it("works without a catalog, taking the name as given", async () => {
    const { catalog: _omitted, ...withoutCatalog } = ports;
    const evidence = await investigate(withoutCatalog, { table: "db.events", flinkJob: JOB }, now);
    expect(evidence.sources.catalog.status).toBe("not-configured");
    expect(evidence.catalog).toBe(undefined);
    expect(evidence.flink?.writer?.committer?.metricTable).toBe("iceberg_db_events");
  });
});

describe("investigate with Kafka Connect writers", () => {
  let connectLakehouse: Lakehouse;
  let dynamicLakehouse: Lakehouse;

  beforeAll(async () => {
    connectLakehouse = await startLakehouse({ scenario: "healthy-connect" });
    const dynamic = loadScenario("healthy-connect");
    const connector = dynamic.connect?.connectors[0];
    if (connector) {
      delete connector.config["iceberg.tables"];
      connector.config["iceberg.tables.dynamic-enabled"] = "true";
      connector.config["iceberg.tables.route-field"] = "target_table";
    }
    dynamicLakehouse = await startLakehouse({ scenario: dynamic });
  });
  afterAll(async () => {
    await connectLakehouse.close();
    await dynamicLakehouse.close();
  });

  it("discovers the connector whose iceberg.tables lists the table", async () => {
    const evidence = await investigate(
      evidencePortsFor(connectLakehouse, agent),
      { table: "db.clicks" },
      connectLakehouse.clock.now,
    );
    expect(evidence.connect?.connectorSource).toBe("discovered");
    expect(evidence.connect?.connector.name).toBe("events-sink");
    expect(evidence.connect?.sinkVersion).toBe("1.11.0");
  });

  it("reports a dynamic-routing connector as a candidate", async () => {
    const evidence = await investigate(
      evidencePortsFor(dynamicLakehouse, agent),
      { table: "db.clicks" },
      dynamicLakehouse.clock.now,
    );
    expect(evidence.connect?.connectorSource).toBe("candidate");
  });

  it("uses the configured connector name as is", async () => {
    const evidence = await investigate(
      evidencePortsFor(connectLakehouse, agent),
      { table: "db.clicks", connector: "events-sink" },
      connectLakehouse.clock.now,
    );
    expect(evidence.connect?.connectorSource).toBe("configured");
  });
});
