// Stored records that fail alone, in the whole bot: a damaged history record costs its table the
// "seen before" line, never the diagnosis; an incident a newer release wrote, or one whose walk
// field is cut short, is left out of /iceberg status with a line naming it, and the person's next
// answers arrive as usual.

import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { closedIncident } from "../../support/history-records.js";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FORM = "application/x-www-form-urlencoded";

describe("stored records that cannot be read", () => {
  it("a history record with steps: [null] does not stop its table's diagnoses", async () => {
    h = await startHarness("history-null-step", { scenario: "competing-appends" });
    const harness = h;
    const now = harness.lakehouse!.clock.now();
    const history = new HistoryStore(harness.scope.redis, {
      namespace: harness.scope.namespace,
      resolvedDays: 30,
      now: () => now,
    });
    // An earlier incident of the same cause (the match reads its steps), damaged in one nested field.
    await history.save(closedIncident("inc-900", now - 86_400_000, { channel: CHANNEL }));
    const key = `{${harness.scope.namespace}}:history:db.events`;
    const record = JSON.parse((await harness.scope.redis.hget(key, "inc-900")) as string);
    await harness.scope.redis.hset(key, "inc-900", JSON.stringify({ ...record, steps: [null] }));

    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }], now))).status).toBe(202);
    const diagnosis = await eventually(() => {
      const root = harness.standIn.messages(CHANNEL).find((m) => !m.thread_ts && !m.ephemeralUser);
      return root ? harness.standIn.thread(CHANNEL, root.ts)[1] : undefined;
    }, "the diagnosis in the thread");
    expect(JSON.stringify(diagnosis.blocks)).toContain("db.events");
    await quiescent(harness);
    const incident = await harness.bots[0]!.store.openIncidentFor("db.events");
    expect(incident?.state).not.toBe("diagnosing");
    expect(incident?.verdict).toBeDefined();
    expect(incident?.diagnoses).toBe(1);
  });

  it("/iceberg status leaves out an incident of a newer format or with a cut walk, names them, and blocks nothing", async () => {
    h = await startHarness("status-unreadable", { scenario: "competing-appends" });
    const harness = h;
    const store = harness.bots[0]!.store;
    const now = harness.lakehouse!.clock.now();
    const ids: string[] = [];
    for (const table of ["db.alpha", "db.beta", "db.gamma"])
      ids.push((await store.openOrJoin(table, CHANNEL, now)).incident.id);
    const [good, newer, cut] = ids as [string, string, string];
    await store.update(good, { walk: { state: "open", nowLine: "waiting" } }, now);
    await harness.scope.redis.hset(store.keys.incident(newer), "format", "999");
    await harness.scope.redis.hset(store.keys.incident(cut), "walk", '{"state":"awaiting-appr');
    await expect(store.get(newer)).rejects.toMatchObject({
      code: "stored_record_invalid",
      hint: expect.stringContaining("upgrade"),
    });
    await expect(store.get(cut)).rejects.toMatchObject({
      code: "stored_record_invalid",
      message: expect.stringContaining("walk"),
    });

    const slash = (text: string) =>
      postSigned(
        harness.url("/slack/events"),
        harness.secret,
        slashCommandBody({ text, userId: "U0ASKER", channelId: CHANNEL }),
        FORM,
      );
    const answers = () =>
      harness.standIn
        .messages(CHANNEL)
        .filter((m) => m.ephemeralUser === "U0ASKER" && !/…$/.test(m.text.trim()));
    expect((await slash("status")).status).toBe(200);
    const status = await eventually(
      () => answers().find((m) => /db\.alpha/.test(`${m.text}${JSON.stringify(m.blocks)}`)),
      "the status list",
    );
    const shown = `${status.text}\n${JSON.stringify(status.blocks)}`;
    expect(shown).not.toMatch(/db\.beta|db\.gamma/);
    expect(shown).toContain(`\`${newer}\``);
    expect(shown).toContain(`\`${cut}\``);
    expect(shown).toMatch(/could not be read and are left out of this list/);

    // The person's next answer is not held behind the first.
    const before = answers().length;
    expect((await slash("history db.events")).status).toBe(200);
    await eventually(() => answers().length > before, "the history answer");
    await quiescent(harness);
    expect(
      answers().filter((m) => /could not be read/.test(`${m.text}${JSON.stringify(m.blocks)}`)),
    ).toHaveLength(1);
  });
});
