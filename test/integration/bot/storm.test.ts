import { afterEach, describe, expect, it } from "vitest";
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

const TABLES = ["db.t0", "db.t1", "db.t2", "db.t3", "db.t4"];

describe("alert storms and two bot processes", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const settled = async (harness: Harness, threads: number) =>
    eventually(() => {
      const roots = harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts && !m.ephemeralUser);
      const replies = harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts);
      return roots.length >= threads && replies.length >= threads ? { roots, replies } : undefined;
    });

  it("turns 500 concurrent alerts about 5 tables, sent to two processes, into exactly 5 threads", async () => {
    const diagnosis = fixedDiagnosis(20);
    h = await startHarness("storm", { bots: 2, botOptions: { diagnose: diagnosis.diagnose } });
    const harness = h;
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        postAlert(
          harness,
          alertmanagerBody([
            { table: TABLES[i % TABLES.length], fingerprint: `storm${i.toString().padStart(11, "0")}` },
          ]),
          { bot: i % 2 },
        ),
      ),
    );
    expect(responses.every((r) => r.status === 202)).toBe(true);
    const { roots } = await settled(harness, 5);
    // Let stragglers (card edits, any duplicate) land before counting.
    await quiescent(harness);
    expect(roots.map((m) => m.text).sort()).toEqual(TABLES.map((t) => expect.stringContaining(t)));
    expect(harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(5);
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts)).toHaveLength(5);
    expect(diagnosis.calls.sort()).toEqual(TABLES);
    const counts = await Promise.all(TABLES.map((t) => harness.bots[0]!.store.openIncidentFor(t)));
    expect(counts.map((i) => i?.alertCount)).toEqual([100, 100, 100, 100, 100]);
  });

  it("posts nothing twice when both processes receive the same alerts", async () => {
    const diagnosis = fixedDiagnosis();
    h = await startHarness("twin", { bots: 2, botOptions: { diagnose: diagnosis.diagnose } });
    const harness = h;
    const body = alertmanagerBody([
      { table: "db.events", fingerprint: "twin000000000001" },
      { table: "db.orders", fingerprint: "twin000000000002" },
    ]);
    // Two Alertmanager replicas notify both bot replicas: four deliveries of the same two alerts.
    await Promise.all([
      postAlert(harness, body, { bot: 0 }),
      postAlert(harness, body, { bot: 1 }),
      postAlert(harness, body, { bot: 0 }),
      postAlert(harness, body, { bot: 1 }),
    ]);
    await settled(harness, 2);
    await quiescent(harness);
    const posts = harness.standIn.calls.filter((c) => c.method === "chat.postMessage" && c.ok);
    expect(posts).toHaveLength(4);
    const texts = harness.standIn.messages(CHANNEL).map((m) => `${m.thread_ts ?? "root"}|${m.text}`);
    expect(new Set(texts).size).toBe(texts.length);
    expect(diagnosis.calls.sort()).toEqual(["db.events", "db.orders"]);
    const incident = await harness.bots[1]!.store.openIncidentFor("db.events");
    expect(incident?.alertCount).toBe(1);
  });
});
