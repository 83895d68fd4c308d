// Drills for an incident's root (its status card) and diagnosis through the outbox, on real Redis
// and the Slack stand-in with the whole bot: the root exists exactly once and the diagnosis is in
// its thread, whatever Slack does to the calls that carry them.

import { afterEach, describe, expect, it } from "vitest";
import { SlackOutbox } from "../../../src/adapters/slack/outbox/outbox.js";
import { OUTBOX_EVENT_TYPE, rootOutboxId } from "../../../src/adapters/slack/outbox/poster.js";
import type { StoredMessage } from "../../../src/sim/slack/types.js";
import { pause, until } from "../../support/poll.js";
import { eventBody, postSigned, slashCommandBody } from "../../support/slack-signing.js";
import {
  alertmanagerBody,
  CHANNEL,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "../bot/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const outboxIdOf = (m: StoredMessage) =>
  m.metadata?.event_type === OUTBOX_EVENT_TYPE ? String(m.metadata.event_payload.outbox_id) : undefined;

const topLevel = (args: Record<string, unknown>) => args.thread_ts === undefined;

async function start(label: string, timeoutMs?: number, capMs = 500) {
  h = await startHarness(label, {
    botOptions: {
      diagnose: fixedDiagnosis().diagnose,
      slackDelivery: { ...(timeoutMs ? { timeoutMs } : {}), backoff: { baseMs: 100, capMs } },
    },
  });
  return h;
}

/** Waits for the outbox to drain and Slack to settle, then counts what the channel holds. */
async function settle(harness: Harness) {
  const bot = harness.bots[0]!;
  const outbox = new SlackOutbox(bot.redis, harness.scope.namespace);
  await until(
    async () => (await bot.store.openIncidentFor("db.events"))?.verdict !== undefined,
    "the diagnosis",
    { intervalMs: 100 },
  );
  await until(async () => (await outbox.pending()) === 0, "the outbox to drain", { intervalMs: 100 });
  await harness.standIn.settled();
  const incident = await bot.store.openIncidentFor("db.events");
  const roots = harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts && !m.ephemeralUser);
  const replies = harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts && !m.ephemeralUser);
  return { incident: incident!, roots, replies };
}

describe("the incident's root and diagnosis through the outbox", () => {
  it("slow Slack on the root (stored, answered after the client gave up): one root, the diagnosis in its thread", async () => {
    const harness = await start("outbox-root-slow", 500);
    harness.standIn.inject({ method: "chat.postMessage", kind: "late", delayMs: 1500, match: topLevel });
    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);

    const { incident, roots, replies } = await settle(harness);
    expect(roots).toHaveLength(1);
    const [root] = roots;
    expect(outboxIdOf(root!)).toBe(rootOutboxId(incident.id));
    expect(incident.rootTs).toBe(root!.ts);
    // Found in the channel's history by its outbox id, not posted again.
    expect(harness.standIn.calls.some((c) => c.method === "conversations.history")).toBe(true);
    // Every reply (the diagnosis) is in the root's thread, once.
    const diagnoses = replies.filter((m) => JSON.stringify(m.blocks).includes("losing the race"));
    expect(diagnoses).toHaveLength(1);
    expect(replies.every((m) => m.thread_ts === root!.ts)).toBe(true);
    expect(new Set(replies.map(outboxIdOf)).size).toBe(replies.length);
  });

  it("Slack answering 5xx for 75 s (the first root stored anyway): after recovery one root and one diagnosis, at the first attempt", async () => {
    const harness = await start("outbox-root-outage", undefined, 5_000);
    // The first root post reaches Slack but is answered 503; then every post fails for 75 s.
    harness.standIn.inject({
      method: "chat.postMessage",
      kind: "status",
      status: 503,
      delivered: true,
      times: 1,
      match: topLevel,
    });
    harness.standIn.inject({ method: "chat.postMessage", kind: "status", status: 503, forMs: 75_000 });
    // Taken after the fault: every call from started + 75 s on is past the outage.
    const started = Date.now();
    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);

    await pause(started + 75_000 - Date.now());
    // During the outage nothing was posted twice and the diagnosis waited.
    expect(harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts)).toHaveLength(0);
    const { incident, roots, replies } = await settle(harness);
    // Recovered at the first attempt after the outage (backoff capped at 5 s), not a clock's bound.
    const afterOutage = harness.standIn.calls.filter(
      (c) => c.method === "chat.postMessage" && c.atMs >= started + 75_000,
    );
    expect(afterOutage[0]?.ok).toBe(true);
    expect(roots).toHaveLength(1);
    expect(incident.rootTs).toBe(roots[0]!.ts);
    const diagnoses = replies.filter((m) => JSON.stringify(m.blocks).includes("losing the race"));
    expect(diagnoses).toHaveLength(1);
    expect(diagnoses[0]!.thread_ts).toBe(roots[0]!.ts);
    // The card was edited in place to show the verdict, not posted again.
    expect(roots[0]!.edits).toBeGreaterThan(0);
  });

  it("Slack 5xx on the root for a while (nothing stored): after recovery exactly one root, the diagnosis under it", async () => {
    const harness = await start("outbox-root-5xx", undefined, 1_000);
    harness.standIn.inject({
      method: "chat.postMessage",
      kind: "status",
      status: 502,
      forMs: 5_000,
      match: topLevel,
    });
    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
    const { incident, roots, replies } = await settle(harness);
    expect(roots).toHaveLength(1);
    expect(incident.rootTs).toBe(roots[0]!.ts);
    const failedRootPosts = harness.standIn.calls.filter(
      (c) => c.method === "chat.postMessage" && c.fault === "status",
    );
    expect(failedRootPosts.length).toBeGreaterThan(1);
    expect(replies.filter((m) => JSON.stringify(m.blocks).includes("losing the race"))).toHaveLength(1);
    expect(replies.every((m) => m.thread_ts === roots[0]!.ts)).toBe(true);
  });

  it("slow Slack on a command's top-level result (stored, answered late): the result exists once", async () => {
    const harness = await start("outbox-command-slow", 500);
    harness.standIn.inject({ method: "chat.postMessage", kind: "late", delayMs: 1500, match: topLevel });
    const ack = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      slashCommandBody({ text: "diagnose db.events" }),
      "application/x-www-form-urlencoded",
    );
    expect(ack.status).toBe(200);
    const bot = harness.bots[0]!;
    const outbox = new SlackOutbox(bot.redis, harness.scope.namespace);
    await until(
      () => harness.standIn.calls.some((c) => c.method === "conversations.history"),
      "the lost answer to be looked for",
      { intervalMs: 100 },
    );
    await until(async () => (await outbox.pending()) === 0, "the outbox to drain", { intervalMs: 100 });
    await harness.standIn.settled();
    const results = harness.standIn
      .messages(CHANNEL)
      .filter((m) => !m.ephemeralUser && !m.thread_ts && m.text.includes("db.events"));
    expect(results).toHaveLength(1);
    expect(outboxIdOf(results[0]!)).toBeDefined();
  });

  it("App Home through Slack 5xx for a while: published once Slack is back", async () => {
    const harness = await start("outbox-home-5xx");
    harness.standIn.inject({ method: "views.publish", kind: "status", status: 503, forMs: 3_000 });
    const body = eventBody(
      { type: "app_home_opened", user: "U0HOMEOUT", channel: "D0HOME", tab: "home", event_ts: "1.3" },
      "Ev0HOMEOUT01",
    );
    const ack = await postSigned(harness.url("/slack/events"), harness.secret, body, "application/json");
    expect(ack.status).toBe(200);
    await until(() => harness.standIn.views.published.U0HOMEOUT, "App Home to be published", {
      intervalMs: 100,
    });
    const publishes = harness.standIn.calls.filter((c) => c.method === "views.publish");
    expect(publishes.filter((c) => c.fault === "status").length).toBeGreaterThan(0);
    expect(publishes.filter((c) => c.ok)).toHaveLength(1);
  });
});
