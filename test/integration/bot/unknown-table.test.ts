// An alert for a table neither the catalog nor BOT_CONFIG knows: one note in the thread (not a
// failed diagnosis), no repair proposed, and the incident closes when its alerts resolve (there
// is no writer whose commits could resume).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "./harness.js";

describe("an alert for a table nobody knows", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("alert-unknown-table", { scenario: "competing-appends" });
  });
  afterAll(async () => {
    await h.close();
  });

  const root = () =>
    h.standIn.messages(CHANNEL).find((m) => !m.thread_ts && !m.ephemeralUser && /db\.nosuch/.test(m.text));
  const card = () => {
    const r = root();
    return r ? `${r.text}\n${JSON.stringify(r.blocks)}` : "";
  };
  const replies = () => {
    const r = root();
    return r ? h.standIn.thread(CHANNEL, r.ts).slice(1) : [];
  };

  it("gets one note, and its incident closes when its alerts resolve", async () => {
    const alert = { table: "db.nosuch", fingerprint: "f00000000000000a" };
    const now = h.lakehouse!.clock.now();
    expect((await postAlert(h, alertmanagerBody([alert], now))).status).toBe(202);
    await eventually(
      () => replies().some((m) => /not a table the catalog or BOT_CONFIG knows/.test(m.text)),
      "the unknown-table note",
    );
    await quiescent(h);
    const notes = replies();
    expect(notes).toHaveLength(1);
    expect(notes[0]!.text).toMatch(/closes when its alerts resolve/);
    expect(card()).toMatch(/closes when its alerts resolve/);
    expect(card()).not.toMatch(/failed/i);

    // A repeat of the firing alert adds nothing to the thread.
    expect((await postAlert(h, alertmanagerBody([alert], now))).status).toBe(202);
    const resolved = await postAlert(h, alertmanagerBody([{ ...alert, status: "resolved" }], now + 1000));
    expect(resolved.status).toBe(202);
    await eventually(() => /resolved/i.test(card()), "the card saying the incident resolved");
    await quiescent(h);
    expect(replies().filter((m) => /not a table/.test(m.text))).toHaveLength(1);

    // A new alert for the table opens a new incident: the old one is closed.
    expect(
      (await postAlert(h, alertmanagerBody([{ ...alert, fingerprint: "f00000000000000b" }], now + 2000)))
        .status,
    ).toBe(202);
    await eventually(
      () =>
        h.standIn
          .messages(CHANNEL)
          .filter((m) => !m.thread_ts && !m.ephemeralUser && /db\.nosuch/.test(m.text)).length === 2,
      "a second incident for the table",
    );
  });
});
