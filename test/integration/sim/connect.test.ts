import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { type ScenarioInput, ScenarioSchema } from "../../../src/sim/scenario/schema.js";

const TRACE =
  "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)";

const input: ScenarioInput = {
  name: "connect-stopped-test",
  description: "A sink whose coordinator stopped after one failed commit.",
  table: "db.clicks",
  catalog: {
    tables: [
      {
        name: "db.clicks",
        snapshots: [
          {
            series: { from: "-3h", to: "-40m", every: "5m" },
            operation: "append",
            committer: { kind: "connect", connector: "clicks-sink" },
          },
        ],
      },
    ],
  },
  connect: {
    connectors: [
      {
        name: "clicks-sink",
        config: {
          "connector.class": "org.apache.iceberg.connect.IcebergSinkConnector",
          "iceberg.tables": "db.clicks",
          "iceberg.control.commit.max-consecutive-failures": "1",
        },
        tasks: [
          { id: 0, state: "FAILED", trace: TRACE },
          { id: 1, state: "RUNNING" },
        ],
      },
    ],
  },
  writers: [
    {
      table: "db.clicks",
      committer: { kind: "connect", connector: "clicks-sink" },
      commitEvery: "5m",
      recoversWhen: {
        when: "connector-config-at-least",
        connector: "clicks-sink",
        key: "iceberg.control.commit.max-consecutive-failures",
        value: 3,
      },
    },
  ],
};

describe("simulated Kafka Connect worker", () => {
  let lh: Lakehouse;
  const url = (p: string) => lh.urls.connect + p;
  beforeAll(async () => {
    lh = await startLakehouse({
      scenario: ScenarioSchema.parse(input),
      clock: createSimClock(1_800_000_000_000),
    });
  });
  afterAll(async () => {
    await lh.close();
  });

  it("answers the worker root, plugins, names and the expanded listing", async () => {
    expect(await (await fetch(url("/"))).json()).toMatchObject({ version: "3.9.1" });
    const plugins = (await (await fetch(url("/connector-plugins"))).json()) as {
      class: string;
      version: string;
    }[];
    expect(plugins).toContainEqual({
      class: "org.apache.iceberg.connect.IcebergSinkConnector",
      type: "sink",
      version: "1.11.0",
    });
    expect(await (await fetch(url("/connectors"))).json()).toEqual(["clicks-sink"]);
    const expanded = (await (await fetch(url("/connectors?expand=status&expand=info"))).json()) as Record<
      string,
      { status: { tasks: { state: string }[] }; info: { type: string; config: Record<string, string> } }
    >;
    expect(expanded["clicks-sink"]?.info.type).toBe("sink");
    expect(expanded["clicks-sink"]?.info.config.name).toBe("clicks-sink");
    expect(expanded["clicks-sink"]?.status.tasks.map((t) => t.state)).toEqual(["FAILED", "RUNNING"]);
  });

  it("shows a trace only on the instance that has one", async () => {
    const status = (await (await fetch(url("/connectors/clicks-sink/status"))).json()) as {
      connector: Record<string, unknown>;
      tasks: Record<string, unknown>[];
      type: string;
    };
    expect(status.type).toBe("sink");
    expect(status.connector).toEqual({ state: "RUNNING", worker_id: "10.0.4.21:8083" });
    expect(status.tasks[0]).toMatchObject({ id: 0, state: "FAILED", trace: TRACE });
    expect(status.tasks[1]).not.toHaveProperty("trace");
  });

  it("answers unknown connectors with a 404 error body", async () => {
    const res = await fetch(url("/connectors/nope/status"));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error_code: 404, message: "Connector nope not found" });
  });

  it("restarts with 204 for the connector only and 202 with RESTARTING states otherwise", async () => {
    const legacy = await fetch(url("/connectors/clicks-sink/restart"), { method: "POST" });
    expect(legacy.status).toBe(204);
    expect(await legacy.text()).toBe("");

    const res = await fetch(url("/connectors/clicks-sink/restart?includeTasks=true&onlyFailed=true"), {
      method: "POST",
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as {
      connector: { state: string };
      tasks: { id: number; state: string }[];
    };
    expect(body.connector.state).toBe("RUNNING");
    expect(body.tasks).toEqual([
      { id: 0, state: "RESTARTING", worker_id: "10.0.4.21:8083" },
      { id: 1, state: "RUNNING", worker_id: "10.0.4.21:8083" },
    ]);
    const after = (await (await fetch(url("/connectors/clicks-sink/status"))).json()) as {
      tasks: { state: string }[];
    };
    expect(after.tasks.map((t) => t.state)).toEqual(["RUNNING", "RUNNING"]);

    // The cause is still there: the next commit cycle fails the task again.
    lh.advance(5 * 60_000);
    const again = (await (await fetch(url("/connectors/clicks-sink/status"))).json()) as {
      tasks: { state: string; trace?: string }[];
    };
    expect(again.tasks[0]).toMatchObject({ state: "FAILED", trace: TRACE });
  });

  it("replaces the config on PUT and the writer recovers once the trigger holds", async () => {
    const current = (await (await fetch(url("/connectors/clicks-sink/config"))).json()) as Record<
      string,
      string
    >;
    expect(current.name).toBe("clicks-sink");
    const before = lh.state().tables[0]?.snapshotCount as number;
    const res = await fetch(url("/connectors/clicks-sink/config"), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...current, "iceberg.control.commit.max-consecutive-failures": "3" }),
    });
    expect(res.status).toBe(200);
    const info = (await res.json()) as {
      name: string;
      config: Record<string, string>;
      tasks: unknown[];
      type: string;
    };
    expect(info.config["iceberg.control.commit.max-consecutive-failures"]).toBe("3");
    expect(info.tasks).toEqual([
      { connector: "clicks-sink", task: 0 },
      { connector: "clicks-sink", task: 1 },
    ]);
    const status = (await (await fetch(url("/connectors/clicks-sink/status"))).json()) as {
      tasks: { state: string }[];
    };
    expect(status.tasks.map((t) => t.state)).toEqual(["RUNNING", "RUNNING"]);
    lh.advance(10 * 60_000);
    expect(lh.state().tables[0]?.snapshotCount).toBe(before + 3);
    expect(lh.state().writers[0]?.recovered).toBe(true);
  });
});
