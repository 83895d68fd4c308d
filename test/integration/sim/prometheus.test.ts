import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

const METRIC =
  "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_elapsedSecondsSinceLastSuccessfulCommit";
const NOW = 1_800_000_000_000;

describe("simulated Prometheus", () => {
  let lh: Lakehouse;
  beforeAll(async () => {
    lh = await startLakehouse({ scenario: "competing-appends", clock: createSimClock(NOW) });
  });
  afterAll(async () => {
    await lh.close();
  });

  it("answers an instant query with a vector of the newest value", async () => {
    const body = await (
      await fetch(`${lh.urls.prometheus}/api/v1/query?query=${encodeURIComponent(METRIC)}`)
    ).json();
    expect(body).toEqual({
      status: "success",
      data: {
        resultType: "vector",
        result: [
          {
            metric: expect.objectContaining({ __name__: METRIC, table: "iceberg_db_events" }),
            value: [NOW / 1000, "3300"],
          },
        ],
      },
    });
  });

  it("answers a range query with one point per step", async () => {
    const q = new URLSearchParams({
      query: ` ${METRIC} `,
      start: String((NOW - 15 * 60_000) / 1000),
      end: String(NOW / 1000),
      step: "300",
    });
    const body = (await (await fetch(`${lh.urls.prometheus}/api/v1/query_range?${q}`)).json()) as {
      data: { resultType: string; result: { values: [number, string][] }[] };
    };
    expect(body.data.resultType).toBe("matrix");
    expect(body.data.result[0]?.values).toEqual([
      [(NOW - 15 * 60_000) / 1000, "2400"],
      [(NOW - 10 * 60_000) / 1000, "2700"],
      [(NOW - 5 * 60_000) / 1000, "3000"],
      [NOW / 1000, "3300"],
    ]);
  });

  it("returns an empty result for unknown series and bad_data for a missing query", async () => {
    const empty = await (await fetch(`${lh.urls.prometheus}/api/v1/query?query=up`)).json();
    expect(empty).toEqual({ status: "success", data: { resultType: "vector", result: [] } });
    const bad = await fetch(`${lh.urls.prometheus}/api/v1/query_range?start=1&end=2&step=1`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ status: "error", errorType: "bad_data" });
  });
});
