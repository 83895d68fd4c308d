// The bot in Socket Mode (SLACK_APP_TOKEN set, no public URL): it opens the connection through
// apps.connections.open on the stand-in, receives a slash command envelope over the WebSocket,
// acks it there, and posts the diagnosis through the Web API like in HTTP mode.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANG_MS } from "../../support/poll.js";
import { slashCommandBody } from "../../support/slack-signing.js";
import { CHANNEL, eventually, type Harness, startHarness } from "./harness.js";

const APP_TOKEN = "xapp-1-A0STANDIN-1-socketmodetesttoken";

describe("Socket Mode", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("socket", {
      scenario: "competing-appends",
      env: { SLACK_APP_TOKEN: APP_TOKEN },
    });
    await h.standIn.socketMode.waitForConnection(HANG_MS);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("connects with the app-level token through apps.connections.open", () => {
    expect(h.config.slack.mode).toBe("socket");
    expect(h.standIn.socketMode.connected()).toBe(true);
    const opened = h.standIn.calls.filter((c) => c.method === "apps.connections.open");
    expect(opened).toHaveLength(1);
    expect(opened[0]?.ok).toBe(true);
    const response = opened[0]?.response as { url?: unknown } | undefined;
    expect(String(response?.url)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
  });

  it("refuses to open a connection with a bot token", async () => {
    const response = await fetch(`${h.standIn.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: "Bearer xoxb-stand-in" },
    });
    expect(await response.json()).toEqual({ ok: false, error: "not_allowed_token_type" });
  });

  it("acks /iceberg diagnose over the socket, then posts the diagnosis in the channel", async () => {
    const payload = Object.fromEntries(
      new URLSearchParams(
        slashCommandBody({ text: "diagnose db.events", responseUrl: h.standIn.responseUrl() }),
      ),
    );
    const ack = await h.standIn.socketMode.send("slash_commands", payload);
    expect(ack.response_type).toBe("ephemeral");
    expect(ack.text).toMatch(/Diagnosing `?db\.events`?…/);

    const posted = await eventually(
      () => h.standIn.messages(CHANNEL).find((m) => !m.ephemeralUser && m.text.includes("db.events")),
      "the diagnosis in the incident channel",
    );
    expect(posted.thread_ts).toBeUndefined();
    const post = h.standIn.calls.find(
      (c) => c.method === "chat.postMessage" && c.ok && c.args.channel === CHANNEL,
    );
    expect(post).toBeDefined();
  });

  it("still answers the health and webhook routes on the routes port", async () => {
    expect(h.bots[0]?.port).toBeGreaterThan(0);
    const health = await fetch(h.url("/healthz"));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    // The webhook is there and still checks its token.
    const webhook = await fetch(h.url("/webhooks/alertmanager"), { method: "POST", body: "{}" });
    expect(webhook.status).toBe(401);
    // Slack's HTTP endpoint is not: in Socket Mode nothing arrives over HTTP.
    const events = await fetch(h.url("/slack/events"), { method: "POST", body: "{}" });
    expect(events.status).toBe(404);
  });
});
