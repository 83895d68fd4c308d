// The stand-in's Socket Mode side, driven by undici's WebSocket (the client @slack/socket-mode
// uses): token checks, one-use URLs, hello, envelopes and acks of every frame length class,
// ping/pong and the close handshake.

import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { ping, WebSocket } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";

const APP_TOKEN = "xapp-1-A0STANDIN-1-standintest";

async function openUrl(standIn: SlackStandIn, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${standIn.apiUrl}apps.connections.open`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

/** Connects and resolves once `hello` arrived; every later message is parsed into `messages`. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const messages: Array<Record<string, unknown>> = [];
  const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
    ws.addEventListener("error", () => reject(new Error("WebSocket failed to open")));
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as Record<string, unknown>;
      if (message.type === "hello") resolve(message);
      else messages.push(message);
    });
  });
  return { ws, hello, messages };
}

function closed(ws: WebSocket): Promise<{ code: number; wasClean: boolean }> {
  return new Promise((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, wasClean: event.wasClean }));
  });
}

describe("Slack stand-in: Socket Mode", () => {
  let standIn: SlackStandIn;
  beforeAll(async () => {
    standIn = await startSlackStandIn({ appToken: APP_TOKEN });
  });
  afterAll(async () => {
    await standIn.close();
  });

  it("opens connections only for the app-level token", async () => {
    expect(await openUrl(standIn, "xoxb-stand-in")).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect(await openUrl(standIn, "xapp-1-someone-else")).toEqual({ ok: false, error: "invalid_auth" });
    const opened = await openUrl(standIn, APP_TOKEN);
    expect(opened.ok).toBe(true);
    expect(String(opened.url)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/socket-mode\?ticket=/);
  });

  it("greets with hello, relays envelopes and acks of every length, and closes cleanly", async () => {
    const { url } = await openUrl(standIn, APP_TOKEN);
    const { ws, hello, messages } = await connect(String(url));
    expect(hello).toMatchObject({ type: "hello", num_connections: 1 });
    await standIn.socketMode.waitForConnection();
    expect(standIn.socketMode.connected()).toBe(true);

    // The app's side: ack every envelope, echoing back a body as long as the one received.
    ws.addEventListener("message", (event) => {
      const envelope = JSON.parse(String(event.data)) as {
        envelope_id?: string;
        payload?: { text?: string };
      };
      if (envelope.envelope_id === undefined) return;
      ws.send(
        JSON.stringify({ envelope_id: envelope.envelope_id, payload: { echo: envelope.payload?.text } }),
      );
    });
    // 7-bit, 16-bit and 64-bit frame lengths, in both directions.
    for (const size of [10, 1000, 70_000, 300_000]) {
      const text = "x".repeat(size);
      const ack = await standIn.socketMode.send("slash_commands", { command: "/iceberg", text });
      expect(ack.echo).toBe(text);
    }
    expect(messages.map((m) => m.type)).toEqual(Array(4).fill("slash_commands"));
    expect(messages[0]).toMatchObject({ accepts_response_payload: true });

    const pong = new Promise<string>((resolve) => {
      const onPong = (message: unknown): void => {
        const { payload, websocket } = message as { payload: Buffer; websocket: unknown };
        if (websocket !== ws) return;
        unsubscribe("undici:websocket:pong", onPong);
        resolve(payload.toString());
      };
      subscribe("undici:websocket:pong", onPong);
    });
    ping(ws, Buffer.from("are you there"));
    expect(await pong).toBe("are you there");

    const done = closed(ws);
    ws.close(1000);
    expect(await done).toEqual({ code: 1000, wasClean: true });
    await expect(standIn.socketMode.waitForConnection(200)).rejects.toThrow(/No Socket Mode client/);
    expect(standIn.socketMode.connected()).toBe(false);
  });

  it("refuses a URL used twice and fails a send with nobody connected", async () => {
    const { url } = await openUrl(standIn, APP_TOKEN);
    const first = await connect(String(url));
    const second = new WebSocket(String(url));
    const refused = await new Promise<boolean>((resolve) => {
      second.addEventListener("error", () => resolve(true));
      second.addEventListener("open", () => resolve(false));
    });
    expect(refused).toBe(true);

    // Slack's `disconnect` asks the app to go; an app that does closes the socket itself.
    const done = closed(first.ws);
    first.ws.addEventListener("message", (event) => {
      if ((JSON.parse(String(event.data)) as { type?: string }).type === "disconnect") first.ws.close(1000);
    });
    standIn.socketMode.disconnect("refresh_requested");
    expect((await done).wasClean).toBe(true);
    await expect(standIn.socketMode.send("events_api", {})).rejects.toThrow(/no Socket Mode client/);
  });
});
