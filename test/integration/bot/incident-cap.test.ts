// The cap on new incidents: one notification naming more tables than the cap opens only what the
// cap allows, says in one note how many wait, and opens the rest as the minute's budget allows
// (kept in Redis, drained by the workers). A waiting table whose alerts resolve is never opened.
// The clock is injected: the minute turns when the test says.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deferredAlertsStore } from "../../../src/adapters/store/deferred-alerts.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "./harness.js";

describe("the cap on new incidents", () => {
  let h: Harness;
  let clock = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
  beforeAll(async () => {
    h = await startHarness("incident-cap", {
      botConfig: `
tables:
  db.events:
    flinkJobName: events-ingest
incidentCap:
  perRequest: 2
  perMinute: 3
`,
      botOptions: { diagnose: fixedDiagnosis().diagnose, wallClock: () => clock },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const roots = () =>
    h.standIn
      .messages(CHANNEL)
      .filter((m) => !m.thread_ts && !m.ephemeralUser && /db\.t\d/.test(m.text))
      .map((m) => /db\.t\d/.exec(m.text)![0]);
  const capNotes = () => h.standIn.messages(CHANNEL).filter((m) => /more tables? alerted/.test(m.text));

  it("opens what the cap allows, notes the rest once, and opens them as the cap allows", async () => {
    const tables = ["db.t1", "db.t2", "db.t3", "db.t4", "db.t5"];
    const body = alertmanagerBody(
      tables.map((table, i) => ({ table, fingerprint: `a${i.toString(16).padStart(15, "0")}` })),
    );
    const answer = await postAlert(h, body);
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toMatchObject({ accepted: 5, ignored: 0 });

    const note = await eventually(() => capNotes()[0], "the cap note");
    expect(note.text).toMatch(/^3 more tables alerted; they will be opened as the cap allows/);
    // Two by the notification, the third by the drain (the minute's budget is three).
    await eventually(() => roots().length === 3, "three incidents");
    const waiting = deferredAlertsStore(h.bots[0]!.redis, { namespace: h.scope.namespace, now: () => clock });
    await eventually(async () => (await waiting.count()) === 2, "two tables waiting");
    expect(new Set(roots())).toEqual(new Set(["db.t1", "db.t2", "db.t3"]));

    // More notifications over the cap in the same minute wait too, without another note.
    const storm = alertmanagerBody([
      { table: "db.t6", fingerprint: `a${(5).toString(16).padStart(15, "0")}` },
    ]);
    expect(JSON.parse((await postAlert(h, storm)).body)).toMatchObject({ accepted: 1 });
    await eventually(async () => (await waiting.count()) === 3, "db.t6 waiting");
    expect(capNotes()).toHaveLength(1);

    // db.t5's and db.t6's alerts resolve while they wait: nothing to open for them.
    const resolved = alertmanagerBody([
      { table: "db.t5", fingerprint: `a${(4).toString(16).padStart(15, "0")}`, status: "resolved" },
      { table: "db.t6", fingerprint: `a${(5).toString(16).padStart(15, "0")}`, status: "resolved" },
    ]);
    expect((await postAlert(h, resolved)).status).toBe(202);
    expect(await waiting.count()).toBe(1);

    clock += 60_000;
    await eventually(async () => (await waiting.count()) === 0, "the waiting tables drained");
    await eventually(() => roots().length === 4, "the fourth incident");
    expect(new Set(roots())).toEqual(new Set(["db.t1", "db.t2", "db.t3", "db.t4"]));
    expect(capNotes()).toHaveLength(1);
  });
});
