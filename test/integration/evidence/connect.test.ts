// The Kafka Connect client against the simulated worker: listing with expand, status with
// traces, config, the Iceberg sink version, restarts (204 vs 202), config replacement, the
// retryable 409 of a rebalance, and every transport fault.

import { describe, expect, it } from "vitest";
import { createConnectClient } from "../../../src/adapters/evidence/connect/client.js";
import { ErrorCode } from "../../../src/errors.js";
import type { FaultKind } from "../../../src/sim/lakehouse.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import { codedFailure, useLakehouse } from "../../support/lakehouse-ports.js";

const NAME = "events-sink";
// Long enough for a healthy read on a busy machine; the faults below outlast it by far.
const TIMEOUT_MS = 1500;
const TRACE =
  "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)";

const sim = useLakehouse(() => {
  const scenario = loadScenario("healthy-connect");
  const task = scenario.connect?.connectors[0]?.tasks[1];
  if (task) {
    task.state = "FAILED";
    task.trace = TRACE;
  }
  return scenario;
});
const { agent } = sim;

const client = () =>
  createConnectClient({ url: sim.lakehouse.urls.connect, dispatcher: agent, timeoutMs: TIMEOUT_MS });

describe("connect client", () => {
  it("lists connectors with status and config in one call", async () => {
    const [connector] = await client().listConnectors();
    expect(connector?.name).toBe(NAME);
    expect(connector?.type).toBe("sink");
    expect(connector?.config["iceberg.tables"]).toBe("db.clicks");
    expect(connector?.status?.state).toBe("RUNNING");
    const call = sim.lakehouse.requests.filter((r) => r.path === "/connectors").at(-1);
    expect(call?.query.expand).toEqual(["status", "info"]);
  });

  it("reads status with task traces, config and the Iceberg sink version", async () => {
    const evidence = await client().getConnectorEvidence(NAME);
    expect(evidence.connector.state).toBe("RUNNING");
    expect(evidence.connector.tasks.map((t) => t.state)).toEqual(["RUNNING", "FAILED"]);
    expect(evidence.connector.tasks[1]?.trace).toBe(TRACE);
    expect(evidence.connector.tasks[1]?.workerId).toBe("10.0.4.22:8083");
    expect(evidence.config["iceberg.control.commit.interval-ms"]).toBe("300000");
    expect(evidence.sinkVersion).toBe("1.11.0");
  });

  it("keeps going without a sink version when /connector-plugins fails", async () => {
    sim.lakehouse.faults.inject({
      service: "connect",
      path: "/connector-plugins",
      kind: "status",
      status: 500,
    });
    const evidence = await client().getConnectorEvidence(NAME);
    expect(evidence.sinkVersion).toBe(undefined);
    expect(evidence.connector.name).toBe(NAME);
  });

  it("gets 204 for a connector-only restart and 202 with status when tasks are included", async () => {
    const only = await client().restart(NAME, { includeTasks: false, onlyFailed: false });
    expect(only).toEqual({ httpStatus: 204 });
    const withTasks = await client().restart(NAME, { includeTasks: true, onlyFailed: true });
    expect(withTasks.httpStatus).toBe(202);
    expect(withTasks.status?.name).toBe(NAME);
    expect(withTasks.status?.tasks.some((t) => t.state === "RESTARTING")).toBe(true);
    const posted = sim.lakehouse.requests.filter((r) => r.method === "POST").at(-1);
    expect(posted?.query).toMatchObject({ includeTasks: "true", onlyFailed: "true" });
  });

  it("flags a 409 during a rebalance as retryable", async () => {
    sim.lakehouse.faults.inject({
      service: "connect",
      path: `/connectors/${NAME}/restart`,
      kind: "status",
      status: 409,
      times: 1,
    });
    const error = await codedFailure(client().restart(NAME, { includeTasks: true, onlyFailed: false }));
    expect(error.code).toBe(ErrorCode.SourceRetryable);
    expect(error.retryable).toBe(true);
    expect(error.details?.status).toBe(409);
    // After the rebalance the same call goes through.
    expect((await client().restart(NAME, { includeTasks: true, onlyFailed: false })).httpStatus).toBe(202);
  });

  it("replaces the config with PUT and returns what the worker stored", async () => {
    const current = (await client().getConnectorEvidence(NAME)).config;
    const next = { ...current, "iceberg.control.commit.timeout-ms": "60000" };
    const stored = await client().updateConfig(NAME, next);
    expect(stored["iceberg.control.commit.timeout-ms"]).toBe("60000");
    expect((await client().getConnectorEvidence(NAME)).config["iceberg.control.commit.timeout-ms"]).toBe(
      "60000",
    );
    const put = sim.lakehouse.requests.filter((r) => r.method === "PUT").at(-1);
    expect(JSON.parse(put?.body ?? "{}")).toEqual(next);
  });

  it("reports an unknown connector as a 404 with the worker's message", async () => {
    const error = await codedFailure(client().getConnectorEvidence("nope"));
    expect(error.code).toBe(ErrorCode.SourceHttpStatus);
    expect(error.details?.status).toBe(404);
  });

  const faults: [FaultKind, ErrorCode, Record<string, unknown>][] = [
    ["latency", ErrorCode.SourceTimeout, { ms: TIMEOUT_MS + 1500 }],
    ["status", ErrorCode.SourceHttpStatus, { status: 500 }],
    ["hang", ErrorCode.SourceTimeout, {}],
    ["reset", ErrorCode.SourceUnreachable, {}],
    ["truncate", ErrorCode.SourceMalformed, {}],
    ["non-json", ErrorCode.SourceMalformed, {}],
  ];
  it.each(faults)("turns a %s fault into %s within the timeout", async (kind, code, extra) => {
    sim.lakehouse.faults.inject({
      service: "connect",
      path: `/connectors/${NAME}/status`,
      kind,
      times: 1,
      ...extra,
    });
    const error = await codedFailure(client().getConnectorEvidence(NAME));
    expect(error.code).toBe(code);
    // A timeout comes from the client's own deadline (said by the error, not timed).
    if (code === ErrorCode.SourceTimeout) expect(error.details?.timeoutMs).toBe(TIMEOUT_MS);
  });
});
