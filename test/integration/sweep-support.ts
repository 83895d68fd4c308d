// Shared by the sweep's bot tests: the bot configuration, slash commands and button clicks
// signed as Slack signs them, and readers of the digest in the stand-in.

import type { StoredMessage } from "../../src/sim/slack/types.js";
import { postSigned, slashCommandBody } from "../support/slack-signing.js";
import { CHANNEL, type Harness } from "./bot/harness.js";

export const SWEEP_BOT_CONFIG = `
defaults:
  approvers: [U0ALICE]
sweep:
  schedule: "0 6 * * 1"
  ratePerSecond: { catalog: 200, flink: 50, connect: 50 }
  worst: 6
`;

export async function slash(h: Harness, text: string, user = "U0ALICE", bot = 0) {
  return postSigned(
    h.url("/slack/events", bot),
    h.secret,
    slashCommandBody({ text, userId: user, channelId: CHANNEL }),
    "application/x-www-form-urlencoded",
  );
}

export function digests(h: Harness): StoredMessage[] {
  return h.standIn
    .messages(CHANNEL)
    .filter((m) => !m.thread_ts && !m.ephemeralUser && /^Sweep: \d+ tables/.test(m.text));
}

interface ButtonFound {
  blockId: string;
  value: string;
  text: string;
}

/** The button with this action id on the digest line of `table`. */
function digestButton(message: StoredMessage, actionId: string, table: string): ButtonFound | undefined {
  for (const block of message.blocks as Array<{ type: string; block_id?: string; elements?: unknown[] }>) {
    if (block.type !== "actions") continue;
    for (const el of (block.elements ?? []) as Array<{
      action_id?: string;
      value?: string;
      text?: { text?: string };
    }>) {
      if (el.action_id !== actionId || !el.value) continue;
      if ((JSON.parse(el.value) as { t?: string }).t !== table) continue;
      return { blockId: block.block_id ?? "b", value: el.value, text: el.text?.text ?? actionId };
    }
  }
  return undefined;
}

let clicks = 0;

export async function click(
  h: Harness,
  message: StoredMessage,
  actionId: string,
  table: string,
  user = "U0ALICE",
) {
  const button = digestButton(message, actionId, table);
  if (!button) throw new Error(`no ${actionId} button for ${table} in the digest`);
  const payload = {
    type: "block_actions",
    user: { id: user, username: user.toLowerCase(), team_id: "T0TEST" },
    api_app_id: "A0TEST",
    token: "legacy-verification-token",
    container: { type: "message", message_ts: message.ts, channel_id: CHANNEL, is_ephemeral: false },
    trigger_id: `${Date.now()}.${process.pid}.sweep${++clicks}`,
    team: { id: "T0TEST", domain: "test" },
    channel: { id: CHANNEL, name: "incidents" },
    message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
    response_url: h.standIn.responseUrl(),
    actions: [
      {
        action_id: actionId,
        block_id: button.blockId,
        value: button.value,
        type: "button",
        text: { type: "plain_text", text: button.text },
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const answer = await postSigned(
    h.url("/slack/events"),
    h.secret,
    body,
    "application/x-www-form-urlencoded",
  );
  if (answer.status !== 200) throw new Error(`the bot answered ${answer.status} to the ${actionId} click`);
}

/** The table names of the digest's ranked lines, in order. */
export function rankedTables(message: StoredMessage): string[] {
  const out: string[] = [];
  for (const block of message.blocks as Array<{ type: string; text?: { text?: string } }>) {
    const m = block.type === "section" ? /^\*\d+\. `([^`]+)`\*/.exec(block.text?.text ?? "") : null;
    if (m) out.push(m[1]!);
  }
  return out;
}
