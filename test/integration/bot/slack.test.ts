import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import { eventBody, postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { CHANNEL, eventually, fixedDiagnosis, type Harness, quiescent, startHarness } from "./harness.js";

const FORM = "application/x-www-form-urlencoded";

describe("Slack requests through Bolt's receiver", () => {
  let h: Harness;
  const diagnosis = fixedDiagnosis();
  beforeAll(async () => {
    h = await startHarness("slack", { botOptions: { diagnose: diagnosis.diagnose } });
  });
  afterAll(async () => {
    await h.close();
  });

  const jobsQueued = async () => {
    const q = h.bots[0]!.queues;
    return (
      (await q.diagnose.getJobCountByTypes("waiting", "active", "completed", "failed", "delayed")) +
      (await q.slack.getJobCountByTypes("waiting", "active", "completed", "failed", "delayed"))
    );
  };

  it("refuses a forged signature and a stale timestamp with 401, queueing nothing", async () => {
    const body = slashCommandBody({ text: "diagnose db.events" });
    const forged = await postSigned(h.url("/slack/events"), "not-the-secret", body, FORM);
    const stale = await postSigned(
      h.url("/slack/events"),
      h.secret,
      body,
      FORM,
      {},
      Math.floor(Date.now() / 1000) - 6 * 60,
    );
    expect(forged.status).toBe(401);
    expect(stale.status).toBe(401);
    expect(await jobsQueued()).toBe(0);
    expect(diagnosis.calls).toEqual([]);
  });

  it("refuses a timestamp more than five minutes ahead with 401 like a stale one; a small skew passes", async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const future = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "help" }),
      FORM,
      {},
      nowSeconds + 6 * 60,
    );
    expect(future.status).toBe(401);
    expect(future.body).toBe("");
    const skewed = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "help" }),
      FORM,
      {},
      nowSeconds + 60,
    );
    expect(skewed.status).toBe(200);
    // The alert webhooks are not Slack requests and are not judged by that header.
    const probe = await fetch(h.url("/healthz"), {
      headers: { "x-slack-request-timestamp": String(nowSeconds + 3600) },
    });
    expect(probe.status).toBe(200);
  });

  it("carries out a replayed slash command once (same trigger id, re-signed or not)", async () => {
    const before = diagnosis.calls.length;
    const body = slashCommandBody({
      text: "diagnose db.replayed",
      triggerId: "13345224609.738474920.replay",
    });
    const stamp = Math.floor(Date.now() / 1000);
    const first = await postSigned(h.url("/slack/events"), h.secret, body, FORM, {}, stamp);
    const replay = await postSigned(h.url("/slack/events"), h.secret, body, FORM, {}, stamp);
    const resigned = await postSigned(h.url("/slack/events"), h.secret, body, FORM, {
      "x-slack-retry-num": "1",
    });
    expect([first.status, replay.status, resigned.status]).toEqual([200, 200, 200]);
    await eventually(() => diagnosis.calls.length > before);
    await quiescent(h);
    expect(diagnosis.calls.length).toBe(before + 1);
    expect(
      h.standIn.messages(CHANNEL).filter((m) => !m.ephemeralUser && m.text.includes("db.replayed")),
    ).toHaveLength(1);
  });

  it("acks /iceberg diagnose at once, then posts the diagnosis in the channel", async () => {
    const before = diagnosis.calls.length;
    const response = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "diagnose db.events" }),
      FORM,
    );
    expect(response.status).toBe(200);
    const ack = JSON.parse(response.body) as { response_type: string; text: string };
    expect(ack.response_type).toBe("ephemeral");
    expect(ack.text).toMatch(/Diagnosing `?db\.events`?…/);
    const posted = await eventually(() =>
      h.standIn.messages(CHANNEL).find((m) => !m.ephemeralUser && m.text.includes("db.events")),
    );
    expect(posted.thread_ts).toBeUndefined();
    expect(diagnosis.calls.length).toBe(before + 1);
  });

  it("answers a typo and a missing table with an ephemeral usage reply, queueing nothing", async () => {
    const before = await jobsQueued();
    const typo = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "diagnsoe db.events" }),
      FORM,
    );
    expect(JSON.parse(typo.body)).toMatchObject({ response_type: "ephemeral" });
    expect(typo.body).toContain("diagnose");
    const missing = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "audit" }),
      FORM,
    );
    expect(JSON.parse(missing.body).text).toMatch(/audit/);
    const invalid = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "diagnose events" }),
      FORM,
    );
    expect(JSON.parse(invalid.body).text).toMatch(/namespace/);
    expect(await jobsQueued()).toBe(before);
  });

  it("answers /iceberg help in the ack itself", async () => {
    const help = await postSigned(h.url("/slack/events"), h.secret, slashCommandBody({ text: "help" }), FORM);
    const parsed = JSON.parse(help.body) as { response_type: string; blocks: unknown[] };
    expect(parsed.response_type).toBe("ephemeral");
    expect(JSON.stringify(parsed.blocks)).toContain("/iceberg diagnose");
  });

  it("lists open incidents for /iceberg status as an ephemeral message", async () => {
    const { incident } = await h.bots[0]!.store.openOrJoin("db.listed", CHANNEL, Date.now());
    const client = createSlackClient({ token: "xoxb-stand-in", apiUrl: h.standIn.apiUrl });
    const root = await client.chat.postMessage({ channel: CHANNEL, text: "db.listed card" });
    await h.bots[0]!.store.update(incident.id, { rootTs: String(root.ts) }, Date.now());
    const response = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "status", userId: "U0ASKER" }),
      FORM,
    );
    expect(JSON.parse(response.body).text).toMatch(/open incidents/i);
    const reply = await eventually(() =>
      h.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === "U0ASKER"),
    );
    expect(JSON.stringify(reply.blocks) + reply.text).toContain("db.listed");
    // Each incident links to its thread.
    expect(JSON.stringify(reply.blocks)).toContain(`p${String(root.ts).replace(".", "")}`);
  });

  it("publishes App Home once per event, even when Slack retries it", async () => {
    const event = {
      type: "app_home_opened",
      user: "U0HOME",
      channel: "D0HOME",
      tab: "home",
      event_ts: "1.2",
    };
    const body = eventBody(event, "Ev0HOME0001");
    const first = await postSigned(h.url("/slack/events"), h.secret, body, "application/json");
    expect(first.status).toBe(200);
    await eventually(() => h.standIn.views.published.U0HOME);
    const retry = await postSigned(h.url("/slack/events"), h.secret, body, "application/json", {
      "x-slack-retry-num": "1",
      "x-slack-retry-reason": "http_timeout",
    });
    expect(retry.status).toBe(200);
    await quiescent(h);
    expect(h.standIn.calls.filter((c) => c.method === "views.publish")).toHaveLength(1);
    expect(JSON.stringify(h.standIn.views.published.U0HOME)).toContain("db.listed");
  });

  it("acks playbook buttons so Slack shows no error", async () => {
    const payload = JSON.stringify({
      type: "block_actions",
      user: { id: "U0ONCALL" },
      team: { id: "T0TEST" },
      api_app_id: "A0TEST",
      token: "legacy-verification-token",
      trigger_id: "1.2.3",
      actions: [{ action_id: "playbook_apply", block_id: "b", type: "button", value: "{}", action_ts: "1" }],
      container: { type: "message", message_ts: "1.1", channel_id: CHANNEL },
      channel: { id: CHANNEL },
    });
    const response = await postSigned(
      h.url("/slack/events"),
      h.secret,
      new URLSearchParams({ payload }).toString(),
      FORM,
    );
    expect(response.status).toBe(200);
  });
});
