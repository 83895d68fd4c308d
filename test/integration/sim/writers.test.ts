import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const TABLE = "/v1/prod/namespaces/db/tables/events";

interface Loaded {
  metadata: {
    properties: Record<string, string>;
    snapshots: { "timestamp-ms": number; summary: Record<string, string> }[];
  };
}

describe("writer recovery in the competing-appends scenario", () => {
  let lh: Lakehouse;
  const load = async () => (await (await fetch(lh.urls.catalog + TABLE)).json()) as Loaded;
  const flinkSnapshots = (t: Loaded) => t.metadata.snapshots.filter((s) => s.summary["flink.job-id"] === JOB);
  const elapsed = async (): Promise<string | undefined> => {
    const details = (await (await fetch(`${lh.urls.flink}/jobs/${JOB}`)).json()) as {
      vertices: { id: string; name: string }[];
    };
    const v = details.vertices.find((x) => x.name.startsWith("IcebergFilesCommitter"));
    const id =
      "0.IcebergFilesCommitter.IcebergFilesCommitter.table.iceberg_db_events.elapsedSecondsSinceLastSuccessfulCommit";
    const body = (await (
      await fetch(`${lh.urls.flink}/jobs/${JOB}/vertices/${v?.id}/metrics?get=${id}`)
    ).json()) as { value: string }[];
    return body[0]?.value;
  };

  beforeAll(async () => {
    lh = await startLakehouse({ scenario: "competing-appends", clock: createSimClock(1_800_000_000_000) });
  });
  afterAll(async () => {
    await lh.close();
  });

  it("stays stalled while the trigger does not hold, with the metric following the clock", async () => {
    const before = flinkSnapshots(await load()).length;
    lh.advance(10 * 60_000);
    expect(flinkSnapshots(await load()).length).toBe(before);
    expect(await elapsed()).toBe(String(65 * 60));
  });

  it("commits again every 5 minutes once commit.retry.num-retries reaches 8", async () => {
    const table = await load();
    const before = flinkSnapshots(table);
    const lastCheckpoint = Number(before[before.length - 1]?.summary["flink.max-committed-checkpoint-id"]);
    const small = await fetch(lh.urls.catalog + TABLE, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        requirements: [],
        updates: [{ action: "set-properties", updates: { "commit.retry.num-retries": "6" } }],
      }),
    });
    expect(small.status).toBe(200);
    lh.advance(5 * 60_000);
    expect(flinkSnapshots(await load()).length).toBe(before.length);

    const raisedAt = lh.clock.now();
    const res = await fetch(lh.urls.catalog + TABLE, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        requirements: [],
        updates: [{ action: "set-properties", updates: { "commit.retry.num-retries": "8" } }],
      }),
    });
    expect(res.status).toBe(200);
    lh.advance(11 * 60_000);
    const after = flinkSnapshots(await load());
    const fresh = after.slice(before.length);
    expect(fresh.map((s) => s["timestamp-ms"] - raisedAt)).toEqual([0, 5 * 60_000, 10 * 60_000]);
    expect(fresh.map((s) => Number(s.summary["flink.max-committed-checkpoint-id"]))).toEqual([
      lastCheckpoint + 1,
      lastCheckpoint + 2,
      lastCheckpoint + 3,
    ]);
    expect(await elapsed()).toBe(String(60));
    expect(lh.state().writers.find((w) => w.committer === `flink:${JOB}`)?.recoveredAtMs).toBe(raisedAt);
  });

  it("exposes advance and state through the admin routes", async () => {
    const now = lh.clock.now();
    const res = await fetch(`${lh.urls.flink}/__sim/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ms: 60_000 }),
    });
    expect(res.status).toBe(200);
    expect(lh.clock.now()).toBe(now + 60_000);
    const state = (await (await fetch(`${lh.urls.connect}/__sim/state`)).json()) as {
      nowMs: number;
      tables: { properties: Record<string, string> }[];
    };
    expect(state.nowMs).toBe(now + 60_000);
    expect(state.tables[0]?.properties["commit.retry.num-retries"]).toBe("8");
  });
});
