import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createCatalogClient } from "../../src/adapters/evidence/catalog/client.js";
import { createConnectClient } from "../../src/adapters/evidence/connect/client.js";
import type { TableRef } from "../../src/core/evidence/model.js";
import type { Change } from "../../src/core/report/schema.js";
import { ErrorCode } from "../../src/errors.js";
import {
  type ApplyPorts,
  applyChange,
  inverseChange,
  outcomeEvent,
} from "../../src/services/remediation/apply-change.js";
import { createSimClock } from "../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { ScenarioSchema } from "../../src/sim/scenario/schema.js";
import { until } from "../support/poll.js";

const TABLE: TableRef = { namespace: ["db"], name: "events" };
const COMMIT_PATH = "/v1/namespaces/db/tables/events";
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";

const scenario = ScenarioSchema.parse({
  name: "apply-tests",
  description: "A table with default retries and a Connect sink whose task failed.",
  table: "db.events",
  catalog: {
    tables: [
      {
        name: "db.events",
        properties: { "commit.retry.num-retries": "4", "write.format.default": "parquet" },
        snapshots: [
          {
            series: { from: "-2h", to: "-1h", every: "5m" },
            operation: "append",
            committer: { kind: "flink", jobId: JOB },
          },
        ],
      },
    ],
  },
  connect: {
    connectors: [
      {
        name: "events-sink",
        config: {
          "connector.class": "org.apache.iceberg.connect.IcebergSinkConnector",
          "tasks.max": "2",
          topics: "events",
          "iceberg.tables": "db.events",
          "iceberg.control.commit.interval-ms": "60000",
        },
        tasks: [
          { id: 0, state: "RUNNING" },
          { id: 1, state: "FAILED", trace: "org.apache.kafka.connect.errors.ConnectException: Exiting" },
        ],
      },
    ],
  },
});

const retries: Change = {
  kind: "table-properties",
  table: "db.events",
  changes: [
    { key: "commit.retry.num-retries", current: "4", proposed: "10" },
    { key: "commit.retry.min-wait-ms", current: null, proposed: "1000" },
  ],
};

let lake: Lakehouse;
let ports: ApplyPorts;

async function fresh(timeoutMs = 2_000): Promise<void> {
  await lake?.close();
  lake = await startLakehouse({ scenario, clock: createSimClock(Date.UTC(2026, 10, 29, 9, 0, 0)) });
  ports = {
    catalog: createCatalogClient({ url: lake.urls.catalog, timeoutMs }),
    connect: createConnectClient({ url: lake.urls.connect, timeoutMs }),
  };
}

const props = () => lake.state().tables.find((t) => t.name === "db.events")?.properties ?? {};
const commits = () =>
  lake.requests.filter((r) => r.service === "catalog" && r.method === "POST" && r.path === COMMIT_PATH);

beforeEach(() => fresh());
afterAll(() => lake?.close());

describe("applyChange: table properties", () => {
  it("applies with the table uuid asserted, keeps the previous values and reverts in one call", async () => {
    const uuid = lake.state().tables[0]?.uuid as string;
    const outcome = await applyChange(ports, retries, { table: TABLE, expectedUuid: uuid });
    expect(outcome).toMatchObject({
      status: "applied",
      previous: { "commit.retry.num-retries": "4", "commit.retry.min-wait-ms": null },
    });
    expect(props()).toMatchObject({ "commit.retry.num-retries": "10", "commit.retry.min-wait-ms": "1000" });
    const sent = JSON.parse(commits()[0]?.body ?? "{}");
    expect(sent.requirements).toEqual([{ type: "assert-table-uuid", uuid }]);
    expect(outcomeEvent("raise-commit-retries", outcome)).toMatchObject({ type: "apply-succeeded" });

    if (outcome.status !== "applied") throw new Error("unreachable");
    const reverted = await applyChange(ports, inverseChange(retries, outcome.previous), {
      table: TABLE,
      expectedUuid: uuid,
    });
    expect(reverted.status).toBe("applied");
    expect(props()["commit.retry.num-retries"]).toBe("4");
    expect(props()).not.toHaveProperty("commit.retry.min-wait-ms");
    expect(props()["write.format.default"]).toBe("parquet");
  });

  it("does not apply again when the change is already there", async () => {
    await applyChange(ports, retries, { table: TABLE });
    const before = commits().length;
    const again = await applyChange(ports, retries, { table: TABLE });
    expect(again.status).toBe("already-applied");
    expect(commits().length).toBe(before);
  });

  it("refuses to commit when the properties moved since the proposal", async () => {
    await ports.catalog?.commitProperties(TABLE, {
      expectedUuid: lake.state().tables[0]?.uuid as string,
      set: { "commit.retry.num-retries": "6" },
      remove: [],
    });
    const before = commits().length;
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome).toMatchObject({
      status: "conflict-rechecked",
      stillValid: false,
      drift: [{ key: "commit.retry.num-retries", assumed: "4", now: "6" }],
    });
    expect(commits().length).toBe(before);
  });

  it("on a 409 reloads the table and re-checks the proposal instead of forcing it", async () => {
    lake.faults.inject({
      service: "catalog",
      method: "POST",
      path: COMMIT_PATH,
      kind: "status",
      status: 409,
      times: 1,
    });
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome).toMatchObject({ status: "conflict-rechecked", stillValid: true, drift: [] });
    expect(commits()).toHaveLength(1);
    expect(props()["commit.retry.num-retries"]).toBe("4");
    expect(outcomeEvent("raise-commit-retries", outcome)).toMatchObject({
      type: "apply-failed",
      outcome: "conflict",
    });
  });

  it("on a 500 does not retry; the reload shows the change is not there", async () => {
    lake.faults.inject({
      service: "catalog",
      method: "POST",
      path: COMMIT_PATH,
      kind: "status",
      status: 500,
      times: 1,
    });
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome).toMatchObject({ status: "not-applied", code: ErrorCode.ChangeOutcomeUnknown });
    expect(commits()).toHaveLength(1);
    expect(props()["commit.retry.num-retries"]).toBe("4");
  });

  it("when the answer is lost after the commit happened, the reload confirms it", async () => {
    lake.faults.inject({ service: "catalog", method: "POST", path: COMMIT_PATH, kind: "truncate", times: 1 });
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome.status).toBe("applied-confirmed");
    expect(commits()).toHaveLength(1);
    expect(props()["commit.retry.num-retries"]).toBe("10");
  });

  it("when the commit hangs past the timeout and the reload fails too, the outcome is unknown", async () => {
    await fresh(300);
    lake.faults.inject({ service: "catalog", method: "POST", path: COMMIT_PATH, kind: "hang", times: 1 });
    const pending = applyChange(ports, retries, { table: TABLE });
    // The pre-read must work; break the reload only once the commit is in flight.
    await waitFor(() => commits().length === 1);
    lake.faults.inject({ service: "catalog", method: "GET", path: COMMIT_PATH, kind: "status", status: 503 });
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: "unknown", code: ErrorCode.ChangeOutcomeUnknown });
    expect(outcome.status === "unknown" && outcome.detail).toMatch(/Check by hand before trying again/);
    expect(commits()).toHaveLength(1);
    expect(outcomeEvent("raise-commit-retries", outcome)).toMatchObject({
      type: "apply-failed",
      outcome: "unknown",
    });
  });

  it("when the commit hangs past the timeout, the reload tells that nothing landed", async () => {
    await fresh(300);
    lake.faults.inject({ service: "catalog", method: "POST", path: COMMIT_PATH, kind: "hang", times: 1 });
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome.status).toBe("not-applied");
    expect(commits()).toHaveLength(1);
  });
});

describe("applyChange: Kafka Connect", () => {
  const interval: Change = {
    kind: "connector-config",
    connector: "events-sink",
    changes: [{ key: "iceberg.control.commit.interval-ms", current: "60000", proposed: "600000" }],
  };

  it("merges a config change into the current config (GET then PUT) and reverts it", async () => {
    const outcome = await applyChange(ports, interval, { table: TABLE });
    expect(outcome).toMatchObject({
      status: "applied",
      previous: { "iceberg.control.commit.interval-ms": "60000" },
    });
    const put = lake.requests.find((r) => r.service === "connect" && r.method === "PUT");
    expect(JSON.parse(put?.body ?? "{}")).toMatchObject({
      "connector.class": "org.apache.iceberg.connect.IcebergSinkConnector",
      "tasks.max": "2",
      topics: "events",
      "iceberg.tables": "db.events",
      "iceberg.control.commit.interval-ms": "600000",
    });
    const again = await applyChange(ports, interval, { table: TABLE });
    expect(again.status).toBe("already-applied");

    if (outcome.status !== "applied") throw new Error("unreachable");
    await applyChange(ports, inverseChange(interval, outcome.previous), { table: TABLE });
    const config = (await ports.connect?.getConnectorEvidence("events-sink"))?.config;
    expect(config?.["iceberg.control.commit.interval-ms"]).toBe("60000");
    expect(config?.topics).toBe("events");
  });

  it("does not change anything when Connect is rebalancing (409)", async () => {
    lake.faults.inject({
      service: "connect",
      method: "PUT",
      path: "/connectors/events-sink/config",
      kind: "status",
      status: 409,
      times: 1,
    });
    const outcome = await applyChange(ports, interval, { table: TABLE });
    expect(outcome).toMatchObject({ status: "not-applied", code: ErrorCode.SourceRetryable });
  });

  it("restarts only the failed tasks, and a second run finds nothing to restart", async () => {
    const restart: Change = {
      kind: "connector-restart",
      connector: "events-sink",
      includeTasks: true,
      onlyFailed: true,
    };
    const outcome = await applyChange(ports, restart, { table: TABLE });
    expect(outcome.status).toBe("applied");
    const post = lake.requests.find((r) => r.service === "connect" && r.method === "POST");
    expect(post?.path).toBe("/connectors/events-sink/restart");
    expect(post?.query).toMatchObject({ includeTasks: "true", onlyFailed: "true" });
    expect(lake.state().connectors[0]?.tasks.map((t) => t.state)).toEqual(["RUNNING", "RUNNING"]);

    const again = await applyChange(ports, restart, { table: TABLE });
    expect(again.status).toBe("already-applied");
    expect(lake.requests.filter((r) => r.service === "connect" && r.method === "POST")).toHaveLength(1);
  });

  it("a manual change is never applied by the bot", async () => {
    await expect(
      applyChange(ports, { kind: "manual", checklist: [] }, { table: TABLE }),
    ).rejects.toMatchObject({
      code: ErrorCode.UsageInvalid,
    });
  });
});

function waitFor(condition: () => boolean): Promise<boolean> {
  return until(() => condition(), "the condition", { intervalMs: 5 });
}

describe("applyChange: the pre-read fails", () => {
  it("sends nothing and says so", async () => {
    lake.faults.inject({
      service: "catalog",
      method: "GET",
      path: COMMIT_PATH,
      kind: "status",
      status: 503,
      times: 1,
    });
    const outcome = await applyChange(ports, retries, { table: TABLE });
    expect(outcome).toMatchObject({
      status: "not-applied",
      detail: expect.stringMatching(/nothing was sent/),
    });
    expect(commits()).toHaveLength(0);
  });
});
