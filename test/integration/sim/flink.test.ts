import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import { createSpecValidator, FLINK_SPEC, REAL_DIR } from "../../support/openapi.js";

const spec = createSpecValidator(FLINK_SPEC);
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const COMMITTER_ID = `0.IcebergFilesCommitter.IcebergFilesCommitter.table.iceberg_db_events.elapsedSecondsSinceLastSuccessfulCommit`;

function example(name: string): unknown {
  return JSON.parse(readFileSync(path.join(REAL_DIR, "flink/examples", name), "utf8"));
}

/** The keys and value types of each array element: the "shape" of a metrics body. */
function shape(body: unknown): string[] {
  expect(Array.isArray(body)).toBe(true);
  return [
    ...new Set(
      (body as Record<string, unknown>[]).map((e) =>
        Object.entries(e)
          .map(([k, v]) => `${k}:${typeof v}`)
          .sort()
          .join(","),
      ),
    ),
  ];
}

describe("simulated Flink REST API", () => {
  let lh: Lakehouse;
  let get: (p: string) => Promise<{ status: number; body: unknown }>;
  let committerVertex: string;

  beforeAll(async () => {
    lh = await startLakehouse({ scenario: "competing-appends", clock: createSimClock(1_800_000_000_000) });
    get = async (p) => {
      const res = await fetch(lh.urls.flink + p);
      return { status: res.status, body: await res.json() };
    };
    const details = (await get(`/jobs/${JOB}`)).body as { vertices: { id: string; name: string }[] };
    committerVertex = details.vertices.find((v) => v.name.startsWith("IcebergFilesCommitter"))?.id as string;
  });
  afterAll(async () => {
    await lh.close();
  });

  it("serves every job endpoint in the shape the upstream spec defines", async () => {
    const paths = [
      "/jobs",
      "/jobs/overview",
      `/jobs/${JOB}`,
      `/jobs/${JOB}/checkpoints`,
      `/jobs/${JOB}/checkpoints/config`,
      `/jobs/${JOB}/exceptions`,
      `/jobs/${JOB}/exceptions?maxExceptions=2`,
      `/jobs/${JOB}/vertices/${committerVertex}/backpressure`,
    ];
    for (const p of paths) {
      const { status, body } = await get(p);
      expect(status, p).toBe(200);
      expect(spec.validateResponse("GET", p, 200, body), p).toEqual([]);
    }
  });

  it("serves metric lists and values as bare arrays shaped like Flink's documented examples", async () => {
    const base = `/jobs/${JOB}/vertices/${committerVertex}`;
    const list = (await get(`${base}/metrics`)).body;
    expect(shape(list)).toEqual(shape(example("metrics-doc_GET_jobmanager_metrics_list_response.json")));
    expect(list).toContainEqual({ id: COMMITTER_ID });
    expect(list).toContainEqual({ id: "0.numRecordsIn" });

    const values = (await get(`${base}/metrics?get=${COMMITTER_ID},0.numRecordsIn`)).body;
    expect(shape(values)).toEqual(
      shape(example("metrics-doc_GET_taskmanagers_id_metrics_get_response.json")),
    );
    // The writer's newest snapshot is 55 minutes old at the scenario's start.
    expect(values).toContainEqual({ id: COMMITTER_ID, value: "3300" });

    const aggId = COMMITTER_ID.slice(2);
    const aggList = (await get(`${base}/subtasks/metrics`)).body;
    expect(aggList).toContainEqual({ id: aggId });
    const agg = (await get(`${base}/subtasks/metrics?get=${aggId}&agg=min,max,avg,sum`)).body;
    expect(shape(agg)).toEqual(
      shape(example("metrics-doc_GET_taskmanagers_metrics_aggregated_response.json")),
    );
    const minMax = (await get(`${base}/subtasks/metrics?get=${aggId}&agg=min,max`)).body;
    expect(shape(minMax)).toEqual(
      shape(example("metrics-doc_GET_taskmanagers_metrics_agg_min_max_response.json")),
    );
    expect(minMax).toEqual([{ id: aggId, min: 3300, max: 3300 }]);
  });

  it("reports completing checkpoints and the commit conflicts in the exception history", async () => {
    const cps = (await get(`/jobs/${JOB}/checkpoints`)).body as {
      counts: { completed: number; failed: number };
      latest: { completed: { latest_ack_timestamp: number } };
    };
    expect(cps.counts.completed).toBe(1730);
    expect(lh.clock.now() - cps.latest.completed.latest_ack_timestamp).toBeLessThanOrEqual(300_000);
    const ex = (await get(`/jobs/${JOB}/exceptions`)).body as {
      exceptionHistory: {
        entries: { exceptionName: string; stacktrace: string; timestamp: number; taskName: string }[];
      };
    };
    const entries = ex.exceptionHistory.entries;
    expect(entries.map((e) => lh.clock.now() - e.timestamp)).toEqual([5, 20, 35, 50].map((m) => m * 60_000));
    const oldest = entries[entries.length - 1];
    expect(oldest?.exceptionName).toBe("org.apache.iceberg.exceptions.CommitFailedException");
    expect(oldest?.stacktrace).toMatch(
      /^org\.apache\.iceberg\.exceptions\.CommitFailedException: Commit failed: Requirement failed: branch main has changed: expected id \d+ != \d+\n\tat /,
    );
    expect(oldest?.taskName).toContain("IcebergFilesCommitter");
  });

  it("names the v2 sink committer operator after the sink", async () => {
    const scenario = loadScenario("competing-appends");
    const job = scenario.flink?.jobs[0];
    if (!job?.committer) throw new Error("scenario lost its committer");
    job.committer.sink = "iceberg-sink-v2";
    const v2 = await startLakehouse({ scenario });
    try {
      const details = (await (await fetch(`${v2.urls.flink}/jobs/${JOB}`)).json()) as {
        vertices: { id: string; name: string }[];
      };
      const vertex = details.vertices.find((v) => v.name === "iceberg.db.events: Committer");
      expect(vertex).toBeDefined();
      const ids = (await (
        await fetch(`${v2.urls.flink}/jobs/${JOB}/vertices/${vertex?.id}/metrics`)
      ).json()) as { id: string }[];
      expect(ids).toContainEqual({
        id: "0.iceberg_db_events__Committer.IcebergFilesCommitter.table.iceberg_db_events.lastCommitDurationMs",
      });
    } finally {
      await v2.close();
    }
  });

  it("answers unknown jobs with a 404 errors body", async () => {
    const res = await get("/jobs/00000000000000000000000000000000");
    expect(res.status).toBe(404);
    expect((res.body as { errors: string[] }).errors[0]).toContain("not found");
  });
});
