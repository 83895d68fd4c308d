// Stored records that fail alone, in the whole bot: a damaged history record costs its table the
// "seen before" line, never the diagnosis; an incident a newer release wrote, or one whose walk
// field is cut short, is left out of /iceberg status with a line naming it, and the person's next
// answers arrive as usual.

import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { closedIncident } from "../../support/history-records.js";
import { eventBody, postSigned, slashCommandBody } from "../../support/slack-signing.js";
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

  it("App Home and /iceberg history leave out what they cannot read, name it to the person once, and block nothing", async () => {
    h = await startHarness("home-history-unreadable", { scenario: "competing-appends" });
    const harness = h;
    const store = harness.bots[0]!.store;
    const redis = harness.scope.redis;
    const now = harness.lakehouse!.clock.now();
    // Open incidents: one readable, one a newer release wrote.
    await store.openOrJoin("db.alpha", CHANNEL, now);
    const newer = (await store.openOrJoin("db.beta", CHANNEL, now)).incident.id;
    await redis.hset(store.keys.incident(newer), "format", "999");
    // Past incidents of db.events: one readable, one damaged, one of a newer format without its fields.
    const history = new HistoryStore(redis, {
      namespace: harness.scope.namespace,
      resolvedDays: 30,
      now: () => now,
    });
    for (const [id, daysAgo] of [
      ["inc-801", 3],
      ["inc-802", 2],
      ["inc-803", 1],
    ] as const)
      await history.save(closedIncident(id, now - daysAgo * 86_400_000, { channel: CHANNEL }));
    const key = `{${harness.scope.namespace}}:history:db.events`;
    const record = JSON.parse((await redis.hget(key, "inc-802")) as string);
    await redis.hset(key, "inc-802", JSON.stringify({ ...record, steps: [null] }));
    await redis.hset(
      key,
      "inc-803",
      JSON.stringify({ format: 99, incidentId: "inc-803", table: "db.events" }),
    );

    // App Home: the readable incident shown, the three others named in one line.
    const home = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      eventBody({ type: "app_home_opened", user: "U0HOME", channel: "D0HOME", tab: "home" }, "Ev0UNREADHOME"),
      "application/json",
    );
    expect(home.status).toBe(200);
    const view = JSON.stringify(await eventually(() => harness.standIn.views.published.U0HOME, "App Home"));
    expect(view).toContain("db.alpha");
    expect(view).toContain("Open incidents (1)");
    const homeNotes = view.match(/\d+ records could not be read and are left out of this list[^"]*/g) ?? [];
    expect(homeNotes).toHaveLength(1);
    expect(homeNotes[0]).toContain(`incident \`${newer}\` (newer release)`);
    expect(homeNotes[0]).toContain("past incident `inc-802` of `db.events`");
    expect(homeNotes[0]).toContain("past incident `inc-803` of `db.events` (newer release)");
    expect(homeNotes[0]).toContain("3 records");
    expect(homeNotes[0]).toContain("For those of a newer release, upgrade this bot");
    expect(homeNotes[0]).toContain("for the others, the bot's log names the damaged field");

    // /iceberg history: the readable past incident listed, the two others named once.
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
    expect((await slash("history db.events")).status).toBe(200);
    const listed = await eventually(
      () => answers().find((m) => /History of db\.events/.test(m.text)),
      "the history answer",
    );
    const shown = `${listed.text}\n${JSON.stringify(listed.blocks)}`;
    // The readable one is listed.
    expect(shown).toContain("Past incidents, newest first");
    expect(listed.text).toContain("db.events: 1 incidents");
    expect(shown).toContain("2 records could not be read and are left out of this list");
    expect(shown).toContain("past incident `inc-802` of `db.events`");
    expect(shown).toContain("past incident `inc-803` of `db.events`");
    expect(listed.text.match(/could not be read/g)).toHaveLength(1);

    // Another table's history and the person's next answers come as usual.
    const before = answers().length;
    expect((await slash("history db.alpha")).status).toBe(200);
    await eventually(() => answers().length > before, "the next history answer");
    await quiescent(harness);
    const last = answers().at(-1)!;
    expect(`${last.text}${JSON.stringify(last.blocks)}`).not.toMatch(/could not be read/);
  });
});
