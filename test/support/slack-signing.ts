// Signs request bodies the way Slack does (v0 HMAC-SHA256 over "v0:<ts>:<raw body>"), so tests
// drive Bolt's real receiver with requests it verifies.

import { createHmac } from "node:crypto";

export function slackSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  const hash = createHmac("sha256", secret).update(`v0:${timestampSeconds}:${rawBody}`).digest("hex");
  return `v0=${hash}`;
}

export function signedHeaders(
  secret: string,
  rawBody: string,
  contentType: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    "content-type": contentType,
    "x-slack-request-timestamp": String(timestampSeconds),
    "x-slack-signature": slackSignature(secret, timestampSeconds, rawBody),
  };
}

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
