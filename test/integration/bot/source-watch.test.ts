// Failures an operator must see without reading Slack threads: an evidence source that fails shows
// in /metrics (requests by outcome, a failing gauge), in one log line when it starts failing and
// one when it answers again, and in /readyz as detail (the bot stays ready); `start`'s worker
// process that stops answering makes /readyz say so, and its restarts are counted. Counters show
// their known labels at 0 from the first scrape.

import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/adapters/log.js";
import { alertBody } from "../../../src/cli/demo.js";
import { until } from "../../support/poll.js";
import { type Harness, postAlert, startHarness } from "./harness.js";

const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("evidence sources and the worker process, watched", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("shows a catalog answering 503 in /metrics, one log line and /readyz, and its recovery", async () => {
    const lines: Array<{ msg: string; source?: string; kind?: string }> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    h = await startHarness("source-watch", {
      scenario: "healthy-flink",
      botOptions: { log: createLogger({ logLevel: "info" }, { destination }) },
    });
    const harness = h;
    const scrape = async () => (await fetch(harness.url("/metrics"))).text();
    const catalog = (outcome: string) =>
      `iceberg_bot_source_requests_total{kind="catalog",source="default",outcome="${outcome}"}`;
    const failing = 'iceberg_bot_source_failing{kind="catalog",source="default"}';

    // Before any request: every outcome of every configured source, and the job counters, at 0.
    const first = await scrape();
    for (const outcome of ["ok", "refused", "error", "unreachable", "timeout"])
      expect(sample(first, catalog(outcome)), outcome).toBe(0);
    expect(
      sample(first, 'iceberg_bot_source_requests_total{kind="flink",source="default",outcome="error"}'),
    ).toBe(0);
    expect(sample(first, failing)).toBe(0);
    const diagnoseQueue = harness.scope.queueNames.diagnose;
    expect(sample(first, `iceberg_bot_jobs_total{queue="${diagnoseQueue}",outcome="failed"}`)).toBe(0);
    expect(sample(first, `iceberg_bot_diagnosis_seconds_count{kind="incident"}`)).toBe(0);
    expect(sample(first, 'iceberg_bot_webhook_rejected_total{source="grafana",reason="unavailable"}')).toBe(
      0,
    );

    harness.lakehouse!.faults.inject({ service: "catalog", path: "^/", kind: "status", status: 503 });
    const lakehouse = harness.lakehouse!;
    expect((await postAlert(harness, alertBody("db.orders", undefined, lakehouse.clock.now()))).status).toBe(
      202,
    );
    const failed = await until(async () => {
      const text = await scrape();
      return (sample(text, catalog("error")) ?? 0) > 0 && sample(text, failing) === 1 ? text : undefined;
    }, "the catalog's 503 in /metrics");
    expect(sample(failed, catalog("error"))).toBeGreaterThan(0);
    const ready = await fetch(harness.url("/readyz"));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ok: true,
      sources: { failing: { "catalog/default": { outcome: "error", reason: expect.stringMatching(/503/) } } },
    });

    // The catalog answers again: the next request that reaches it clears it, in one more line.
    lakehouse.faults.clear();
    expect((await postAlert(harness, alertBody("db.other", undefined, lakehouse.clock.now()))).status).toBe(
      202,
    );
    const recovered = await until(async () => {
      const text = await scrape();
      return sample(text, failing) === 0 ? text : undefined;
    }, "the catalog answering again");
    expect(
      sample(recovered, 'iceberg_bot_source_last_success_timestamp_seconds{kind="catalog",source="default"}'),
    ).toBeGreaterThan(0);
    const about = lines.filter((l) => l.kind === "catalog" && l.source === "default");
    expect(about.map((l) => l.msg)).toEqual([
      "evidence source default (catalog) is failing",
      "evidence source default (catalog) answers again",
    ]);
    expect(
      ((await (await fetch(harness.url("/readyz"))).json()) as { sources?: unknown }).sources,
    ).toBeUndefined();
  });

  it("under start, says in /readyz when the worker process stops answering, and counts its restarts", async () => {
    h = await startHarness("worker-heartbeat", {
      scenario: "healthy-flink",
      botOptions: { workerProcess: { restartDelayMs: 50, heartbeatTimeoutMs: 1500 } },
    });
    const harness = h;
    const supervisor = harness.bots[0]!.workerProcess!;
    const restarts = async () =>
      sample(await (await fetch(harness.url("/metrics"))).text(), "iceberg_bot_worker_restarts_total");
    const readiness = async () => {
      const response = await fetch(harness.url("/readyz"));
      return { status: response.status, body: (await response.json()) as { failing?: { worker?: string } } };
    };
    expect(await restarts()).toBe(0);
    await until(async () => (await readiness()).status === 200 || undefined, "ready");

    const pid = supervisor.pid!;
    process.kill(pid, "SIGSTOP");
    try {
      const stopped = await until(async () => {
        const r = await readiness();
        return r.status === 503 ? r : undefined;
      }, "readyz to report the stopped worker process");
      expect(stopped.body.failing?.worker).toMatch(
        new RegExp(`worker process \\(pid ${pid}\\) has not answered`),
      );
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await until(async () => (await readiness()).status === 200 || undefined, "ready again once it answers");

    process.kill(pid, "SIGKILL");
    await until(async () => ((await restarts()) ?? 0) >= 1 || undefined, "the restart counted");
    await until(
      async () => (supervisor.pid !== pid && (await readiness()).status === 200) || undefined,
      "the new worker process ready",
    );
  });
});
