import { afterEach, describe, expect, it } from "vitest";
import { IncidentStore } from "../../../src/adapters/store/incident-store.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  fixedDiagnosis,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "./harness.js";

describe("nothing is lost or doubled when workers die or Slack pushes back", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("finishes a diagnosis on the other worker when one dies mid-job, with one report in the thread", async () => {
    const diagnosis = fixedDiagnosis(1500);
    h = await startHarness("killed", {
      bots: 2,
      botOptions: { diagnose: diagnosis.diagnose, lockDurationMs: 1000, stalledIntervalMs: 500 },
    });
    const harness = h;
    // Only the first process takes diagnosis jobs at first, so we know whom to kill.
    await harness.bots[1]!.workers!.diagnose.pause();
    await postAlert(harness, alertmanagerBody([{ table: "db.events" }]));
    await eventually(() => diagnosis.calls.length === 1 || undefined);
    await harness.bots[0]!.workers!.close(true);
    harness.bots[1]!.workers!.diagnose.resume();

    const diagnosisReply = await eventually(() => harness.standIn.messages(CHANNEL).find((m) => m.thread_ts));
    expect(diagnosisReply.text).toContain("db.events");
    // The dead worker's own run may still finish in the background: count once all is quiet.
    await quiescent(harness);
    expect(diagnosis.calls.length).toBe(2);
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts)).toHaveLength(1);
    expect(harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);
  });

  it("delivers every message through Slack 429s (Retry-After) and 5xx errors", async () => {
    const diagnosis = fixedDiagnosis();
    h = await startHarness("flaky", { botOptions: { diagnose: diagnosis.diagnose } });
    const harness = h;
    harness.standIn.inject({ method: "chat.postMessage", kind: "ratelimit", retryAfterSeconds: 1, times: 2 });
    harness.standIn.inject({ method: "chat.update", kind: "status", status: 503, times: 3 });
    harness.standIn.inject({ method: "chat.postMessage", kind: "status", status: 500, times: 3 });
    await postAlert(
      harness,
      alertmanagerBody([
        { table: "db.events", fingerprint: "flaky00000000001" },
        { table: "db.orders", fingerprint: "flaky00000000002" },
      ]),
    );
    const settled = await eventually(() => {
      const roots = harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts);
      const replies = harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts);
      const edited = roots.filter((m) => m.edits > 0);
      return roots.length === 2 && replies.length === 2 && edited.length === 2
        ? { roots, replies }
        : undefined;
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}: ${JSON.stringify(harness.standIn.calls.map((c) => [c.method, c.status, c.atMs]))} ${JSON.stringify(harness.standIn.messages(CHANNEL).map((m) => [m.ts, m.thread_ts, m.edits]))}`,
      );
    });
    const statuses = harness.standIn.calls.map((c) => c.status);
    expect(statuses).toContain(429);
    expect(statuses).toContain(500);
    expect(statuses).toContain(503);
    expect(settled.replies.map((m) => m.thread_ts).sort()).toEqual(settled.roots.map((m) => m.ts).sort());
    // Each card shows the final state, not an older one.
    for (const root of settled.roots) {
      const incident = await harness.bots[0]!.store.openIncidentFor(
        root.text.includes("db.events") ? "db.events" : "db.orders",
      );
      expect(incident?.rootTs).toBe(root.ts);
    }
  });

  it("drains a running diagnosis on shutdown before closing the queues and Redis", async () => {
    const diagnosis = fixedDiagnosis(800);
    h = await startHarness("drain", { botOptions: { diagnose: diagnosis.diagnose } });
    const harness = h;
    await postAlert(harness, alertmanagerBody([{ table: "db.events" }]));
    await eventually(() => diagnosis.calls.length === 1, "the diagnosis to start");
    const bot = harness.bots[0]!;
    const incident = await bot.store.openIncidentFor("db.events");
    await bot.stop();
    await expect(bot.redis.ping()).rejects.toThrow();
    // The job ran to the end: its report is in Redis although the process has shut down.
    const store = new IncidentStore(harness.scope.redis, { namespace: harness.scope.namespace });
    expect(await store.getReport(incident!.id, 1)).toMatchObject({
      table: "db.events",
      verdict: "commit-conflict",
    });
    const listening = await fetch(harness.url("/healthz")).then(
      () => true,
      () => false,
    );
    expect(listening).toBe(false);
  });
});
