import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "./harness.js";

describe("alert webhooks refuse what they should and accept real payloads", () => {
  let h: Harness;
  const diagnosis = fixedDiagnosis();
  beforeAll(async () => {
    h = await startHarness("intake", {
      botOptions: { diagnose: diagnosis.diagnose, webhookBodyLimitBytes: 64 * 1024 },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const queued = async () => {
    const counts = await h.bots[0]!.queues.depth();
    return (
      Object.values(counts).reduce((a, b) => a + b, 0) +
      (await h.bots[0]!.queues.diagnose.getCompletedCount())
    );
  };

  it("answers 401 without a token and with a wrong one, and queues nothing", async () => {
    const body = alertmanagerBody([{ table: "db.nothing" }]);
    const missing = await postAlert(h, body, { token: null });
    const wrong = await postAlert(h, body, { token: "webhook-token-for-testz" });
    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(missing.body).toContain("Bearer");
    expect(await queued()).toBe(0);
    expect(await h.bots[0]!.store.openIncidentFor("db.nothing")).toBeUndefined();
  });

  it("answers 400 for malformed JSON", async () => {
    const response = await postAlert(h, '{"version": "4", "alerts": [');
    expect(response.status).toBe(400);
    expect(response.body).toContain("not valid JSON");
  });

  it("answers 400 naming the field that is wrong", async () => {
    const body = JSON.parse(alertmanagerBody([{ table: "db.events" }])) as {
      alerts: Array<Record<string, unknown>>;
    };
    delete body.alerts[0]!.labels;
    const response = await postAlert(h, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toContain("alerts.0.labels");
  });

  it("answers 413 for a body over the cap", async () => {
    const huge = alertmanagerBody([{ table: "db.events", labels: { padding: "x".repeat(70 * 1024) } }]);
    const response = await postAlert(h, huge).catch((error: Error) => ({ status: 0, body: error.message }));
    expect(response.status).toBe(413);
    expect(await queued()).toBe(0);
  });

  it("answers 413 for an oversized body sent without a length (chunked)", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(h.url("/webhooks/alertmanager"), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer webhook-token-for-tests" },
      body,
      duplex: "half",
    } as RequestInit)
      .then((r) => r.status)
      .catch((error: Error) => `connection failed: ${error.message}`);
    expect(response).toBe(413);
  });

  it("accepts Grafana's webhook and notes a resolved alert on the card without closing", async () => {
    const grafana = JSON.stringify({
      receiver: "iceberg-bot",
      status: "firing",
      orgId: 1,
      state: "alerting",
      title: "[FIRING:1] IcebergCommitStalled",
      message: "commits stalled",
      alerts: [
        {
          status: "firing",
          labels: { alertname: "IcebergCommitStalled", job_name: "events-ingest" },
          annotations: { summary: "stalled" },
          startsAt: new Date().toISOString(),
          endsAt: "0001-01-01T00:00:00Z",
          values: { B: 4000 },
          fingerprint: "aa00000000000001",
        },
      ],
    });
    const opened = await postAlert(h, grafana, { path: "/webhooks/grafana" });
    expect(opened.status).toBe(202);
    expect(JSON.parse(opened.body)).toMatchObject({ accepted: 1 });
    await eventually(() => h.standIn.messages(CHANNEL).find((m) => m.thread_ts));
    const incident = await h.bots[0]!.store.openIncidentFor("db.events");
    expect(incident?.rootTs).toBeDefined();

    const resolved = alertmanagerBody([
      { labels: { job_name: "events-ingest" }, status: "resolved", fingerprint: "aa00000000000001" },
    ]);
    expect((await postAlert(h, resolved)).status).toBe(202);
    const card = await eventually(() =>
      h.standIn
        .messages(CHANNEL)
        .find((m) => m.ts === incident?.rootTs && JSON.stringify(m.blocks).includes("cleared")),
    );
    expect(card).toBeDefined();
    const after = await h.bots[0]!.store.openIncidentFor("db.events");
    expect(after?.id).toBe(incident?.id);
    expect(after?.state).not.toBe("resolved");
    const timeline = await h.bots[0]!.store.timeline(incident!.id);
    expect(timeline.map((e) => e.kind)).toEqual(["opened", "alert", "diagnosis", "alert-resolved"]);
  });

  it("ignores an alert that names no table it can resolve", async () => {
    const response = await postAlert(h, alertmanagerBody([{ labels: { job_name: "someone-elses-job" } }]));
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({ accepted: 0, ignored: 1 });
  });

  it("serves /healthz, /readyz and /metrics", async () => {
    const health = await fetch(h.url("/healthz"));
    expect(health.status).toBe(200);
    const ready = await fetch(h.url("/readyz"));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ redis: "ok" });
    const metrics = await (await fetch(h.url("/metrics"))).text();
    expect(metrics).toMatch(/iceberg_bot_jobs_total\{queue="[^"]+",outcome="completed"\} [1-9]/);
    expect(metrics).toContain("iceberg_bot_diagnosis_seconds_bucket");
    expect(metrics).toContain("iceberg_bot_queue_jobs");
    expect(metrics).toMatch(/iceberg_bot_alerts_total\{source="grafana",outcome="accepted"\} 1/);
    const missing = await fetch(h.url("/nope"));
    expect(missing.status).toBe(404);
  });
});
