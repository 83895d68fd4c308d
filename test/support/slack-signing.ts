// Slack request bodies as Slack sends them, signed with the one signer (src/sim/slack/signing.ts),
// so tests drive the bot's real receiver with requests it verifies.

import { signedHeaders } from "../../src/sim/slack/signing.js";

export interface SlashCommandFields {
  text: string;
  channelId?: string;
  userId?: string;
  triggerId?: string;
  responseUrl?: string;
}

let triggerCounter = 0;

/** A form-encoded /iceberg slash command body, as Slack sends it. */
export function slashCommandBody(fields: SlashCommandFields): string {
  triggerCounter++;
  return new URLSearchParams({
    token: "legacy-verification-token",
    team_id: "T0TEST",
    team_domain: "test",
    channel_id: fields.channelId ?? "C0INCIDENTS",
    channel_name: "incidents",
    user_id: fields.userId ?? "U0ONCALL",
    user_name: "oncall",
    command: "/iceberg",
    text: fields.text,
    api_app_id: "A0TEST",
    response_url: fields.responseUrl ?? "http://127.0.0.1:9/unused",
    trigger_id: fields.triggerId ?? `${Date.now()}.${process.pid}.${triggerCounter}`,
  }).toString();
}

/** An Events API envelope for one event. */
export function eventBody(event: Record<string, unknown>, eventId: string): string {
  return JSON.stringify({
    token: "legacy-verification-token",
    team_id: "T0TEST",
    api_app_id: "A0TEST",
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event,
  });
}

export async function postSigned(
  url: string,
  secret: string,
  rawBody: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
  timestampSeconds?: number,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...signedHeaders(secret, rawBody, contentType, timestampSeconds), ...extraHeaders },
    body: rawBody,
  });
  return { status: response.status, body: await response.text() };
}
