// What people do in an incident's thread reaches its story through Bolt's real event path: a
// person's reply is kept (once, even when Slack retries the event), the bot's own messages and
// edits are not, and "I'm on it" on the card names who handles the incident.

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import { createKeys } from "../../../src/adapters/store/keys.js";
import { PeopleStore } from "../../../src/adapters/store/people-store.js";
import { REDIS_URL } from "../../support/redis.js";
import { eventBody, postSigned } from "../../support/slack-signing.js";
import { CHANNEL, eventually, type Harness, quiescent, startHarness } from "./harness.js";

const JSON_TYPE = "application/json";

describe("people in an incident's thread", () => {
  let h: Harness;
  let redis: Redis;
  let people: PeopleStore;
  let incidentId: string;
  let rootTs: string;
  beforeAll(async () => {
    h = await startHarness("thread-people");
    redis = new Redis(REDIS_URL);
    people = new PeopleStore(redis, createKeys(h.scope.namespace));
    const store = h.bots[0]!.store;
    const { incident } = await store.openOrJoin("db.events", CHANNEL, Date.now());
    incidentId = incident.id;
    const client = createSlackClient({ token: "xoxb-stand-in", apiUrl: h.standIn.apiUrl });
    rootTs = String((await client.chat.postMessage({ channel: CHANNEL, text: "db.events card" })).ts);
    await store.update(incident.id, { rootTs }, Date.now());
  });
  afterAll(async () => {
    redis.disconnect();
    await h.close();
  });

  const post = (event: Record<string, unknown>, id: string, headers: Record<string, string> = {}) =>
    postSigned(h.url("/slack/events"), h.secret, eventBody(event, id), JSON_TYPE, headers);

  it("keeps a person's reply once, and neither the bot's messages nor edits", async () => {
    const reply = {
      type: "message",
      channel: CHANNEL,
      channel_type: "channel",
      user: "U0ALICE",
      text: "Spark compaction is paused, looking at the retries now",
      ts: "1732870100.000200",
      thread_ts: rootTs,
    };
    expect((await post(reply, "Ev0REPLY0001")).status).toBe(200);
    // Slack retries the same event: kept once.
    await post(reply, "Ev0REPLY0001", { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" });
    await post({ ...reply, ts: "1732870101.000300", bot_id: "B0BOT", text: "the bot's own" }, "Ev0REPLY0002");
    await post(
      {
        type: "message",
        subtype: "message_changed",
        channel: CHANNEL,
        ts: "1732870102.0",
        message: { text: "edited" },
      },
      "Ev0REPLY0003",
    );
    // Not a thread reply, and a reply in a thread that is no incident's.
    await post({ ...reply, ts: "1732870103.0", thread_ts: undefined, text: "top level" }, "Ev0REPLY0004");
    await post({ ...reply, ts: "1732870104.0", thread_ts: "1.000", text: "elsewhere" }, "Ev0REPLY0005");
    await post({ ...reply, ts: "1732870105.0", user: "U0BOB", text: "second reply" }, "Ev0REPLY0006");
    const remarks = await eventually(async () => {
      const kept = await people.remarks(incidentId);
      return kept.length >= 2 ? kept : undefined;
    });
    await quiescent(h);
    expect((await people.remarks(incidentId)).map((r) => [r.user, r.text])).toEqual([
      ["U0ALICE", "Spark compaction is paused, looking at the retries now"],
      ["U0BOB", "second reply"],
    ]);
    expect(remarks[0]!.atMs).toBeGreaterThan(0);
  });

  it("names who pressed I'm on it first on the card", async () => {
    const press = (user: string, ts: string) =>
      postSigned(
        h.url("/slack/events"),
        h.secret,
        `payload=${encodeURIComponent(
          JSON.stringify({
            type: "block_actions",
            user: { id: user },
            team: { id: "T0TEST" },
            api_app_id: "A0TEST",
            token: "legacy-verification-token",
            trigger_id: `1.2.${ts}`,
            actions: [
              {
                action_id: "incident_claim",
                block_id: "card_decision",
                type: "button",
                value: JSON.stringify({ incidentId }),
                action_ts: ts,
              },
            ],
            container: { type: "message", message_ts: rootTs, channel_id: CHANNEL },
            channel: { id: CHANNEL },
          }),
        )}`,
        "application/x-www-form-urlencoded",
      );
    expect((await press("U0ALICE", "10.1")).status).toBe(200);
    await press("U0BOB", "10.2");
    const card = await eventually(() => {
      const root = h.standIn.messages(CHANNEL).find((m) => m.ts === rootTs);
      const text = JSON.stringify(root?.blocks ?? []);
      return text.includes("Handled by") ? text : undefined;
    });
    expect(card).toContain("<@U0ALICE>");
    expect(card).not.toContain("incident_claim");
    expect((await people.claim(incidentId))?.user).toBe("U0ALICE");
  });
});
