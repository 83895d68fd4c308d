// Slack's own samples as the contract of the Web API stand-in (src/sim/slack): for every method the
// bot calls, the stand-in's answer has only keys Slack's published sample of that method has, each
// of the sample's JSON type, nested objects and array elements included, and it has the keys the
// bot reads. The samples (test/fixtures/upstream/slack/api, from slackapi/java-slack-sdk) hold
// every field a response may carry, success and error alike, with placeholder values.

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";

const SAMPLES = "test/fixtures/upstream/slack/api";
const TOKEN = "xoxb-stand-in";
const APP_TOKEN = "xapp-1-stand-in";
const CHANNEL = "C0SAMPLES";

const sample = (method: string): unknown => JSON.parse(readFileSync(`${SAMPLES}/${method}.json`, "utf8"));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * Where our answer leaves Slack's shape: a key the sample does not have, or a value of another
 * type. Block Kit (`blocks`), message metadata payloads and a view's `state` (keyed by the view's
 * own block and action ids) are the caller's own JSON, so their insides are not the method's shape.
 */
function shapeProblems(ours: unknown, theirs: unknown, path = ""): string[] {
  if (theirs === undefined) return [`${path}: not in Slack's sample`];
  // Null where a field has no value (Slack's channel_actions_ts); the samples write null where a
  // field may be of any type.
  if (theirs === null || ours === null) return [];
  if (typeOf(ours) !== typeOf(theirs)) return [`${path}: ${typeOf(ours)}, Slack's is ${typeOf(theirs)}`];
  if (/(^|\.)(blocks|event_payload|state)$/.test(path)) return [];
  if (Array.isArray(ours)) {
    const element = (theirs as Json[])[0];
    if (element === undefined) return ours.length === 0 ? [] : [`${path}: Slack's sample has no element`];
    return ours.flatMap((item, i) => shapeProblems(item, element, `${path}[${i}]`));
  }
  if (typeof ours === "object" && ours !== null) {
    const sampleObject = theirs as Record<string, Json>;
    return Object.entries(ours).flatMap(([key, value]) =>
      shapeProblems(value, sampleObject[key], path ? `${path}.${key}` : key),
    );
  }
  return [];
}

/** Keys the bot reads from each method's answer (dotted paths); the one place that lists them. */
const READ_BY_THE_BOT: Record<string, string[]> = {
  "auth.test": ["ok", "user_id", "bot_id", "team_id"],
  "chat.postMessage": ["ok", "channel", "ts", "message.ts"],
  "chat.postEphemeral": ["ok", "message_ts"],
  "chat.update": ["ok", "channel", "ts"],
  "chat.delete": ["ok", "channel", "ts"],
  "chat.getPermalink": ["ok", "permalink"],
  "conversations.info": ["ok", "channel.id", "channel.is_member", "channel.is_archived"],
  "conversations.history": ["ok", "messages", "has_more"],
  "conversations.replies": ["ok", "messages", "has_more"],
  "usergroups.users.list": ["ok", "users"],
  "views.open": ["ok", "view.id", "view.external_id"],
  "views.push": ["ok", "view.id"],
  "views.update": ["ok", "view.id", "view.external_id"],
  "views.publish": ["ok", "view.id"],
  "files.getUploadURLExternal": ["ok", "upload_url", "file_id"],
  "files.completeUploadExternal": ["ok", "files"],
  "files.info": ["ok", "file.id", "file.permalink"],
  "files.list": ["ok", "files"],
  "canvases.create": ["ok", "canvas_id"],
  "apps.connections.open": ["ok", "url"],
};

const at = (value: unknown, path: string) =>
  path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);

describe("the Slack Web API stand-in against Slack's published samples", () => {
  let standIn: SlackStandIn;
  const answers: Record<string, unknown> = {};
  const call = async (method: string, args: Record<string, unknown>, token = TOKEN) => {
    const response = await fetch(`${standIn.apiUrl}${method}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(args),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.ok, `${method}: ${JSON.stringify(body)}`).toBe(true);
    answers[method] = body;
    return body;
  };

  beforeAll(async () => {
    standIn = await startSlackStandIn({
      usergroups: { S0ONCALL: ["U0ALICE", "U0BOB"] },
      appToken: APP_TOKEN,
    });
    // Every method the bot calls, as it calls them, each answering ok.
    await call("auth.test", {});
    const root = await call("chat.postMessage", {
      channel: CHANNEL,
      text: "db.events: commits failing",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "*db.events*" } }],
      metadata: { event_type: "iceberg_incident", event_payload: { incident: "inc-1" } },
    });
    const ts = root.ts as string;
    const reply = await call("chat.postMessage", { channel: CHANNEL, thread_ts: ts, text: "diagnosis" });
    await call("chat.postEphemeral", { channel: CHANNEL, user: "U0ALICE", text: "only you" });
    await call("chat.update", { channel: CHANNEL, ts, text: "db.events: resolved" });
    await call("chat.getPermalink", { channel: CHANNEL, message_ts: ts });
    await call("conversations.info", { channel: CHANNEL });
    await call("conversations.history", { channel: CHANNEL, include_all_metadata: true, limit: 10 });
    await call("conversations.replies", { channel: CHANNEL, ts, limit: 10 });
    await call("usergroups.users.list", { usergroup: "S0ONCALL" });
    const modal = {
      type: "modal",
      external_id: "apply-1",
      title: { type: "plain_text", text: "Apply change" },
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "Checking…" } }],
    };
    const opened = await call("views.open", { trigger_id: "12345.98765.abcd", view: modal });
    await call("views.push", { trigger_id: "12345.98765.abce", view: { ...modal, external_id: "apply-2" } });
    await call("views.update", { view_id: (opened.view as { id: string }).id, view: modal });
    await call("views.publish", {
      user_id: "U0ALICE",
      view: { type: "home", blocks: [{ type: "section", text: { type: "mrkdwn", text: "Open incidents" } }] },
    });
    const bytes = Buffer.from("timeline");
    const upload = await call("files.getUploadURLExternal", {
      filename: "timeline.png",
      length: bytes.length,
    });
    expect((await fetch(upload.upload_url as string, { method: "POST", body: bytes })).status).toBe(200);
    await call("files.completeUploadExternal", {
      files: [{ id: upload.file_id, title: "Commit timeline" }],
      channel_id: CHANNEL,
      thread_ts: ts,
    });
    await call("files.info", { file: upload.file_id });
    await call("files.list", { channel: CHANNEL });
    await call("canvases.create", {
      title: "Postmortem",
      document_content: { type: "markdown", markdown: "# db.events" },
    });
    await call("apps.connections.open", {}, APP_TOKEN);
    await call("chat.delete", { channel: CHANNEL, ts: reply.ts });
  });
  afterAll(async () => {
    await standIn?.close();
  });

  it("answers every method the bot calls, each with a sample of Slack's to compare with", () => {
    expect(Object.keys(answers).sort()).toEqual(Object.keys(READ_BY_THE_BOT).sort());
  });

  it.each(Object.keys(READ_BY_THE_BOT))("answers %s in Slack's shape, with what the bot reads", (method) => {
    const ours = answers[method];
    const theirs = sample(method);
    expect(shapeProblems(ours, theirs), method).toEqual([]);
    for (const path of READ_BY_THE_BOT[method] ?? []) {
      expect(at(theirs, path), `${method} ${path} in Slack's sample`).not.toBeUndefined();
      expect(at(ours, path), `${method} ${path} in the stand-in's answer`).not.toBeUndefined();
    }
  });

  it("finds a key Slack does not send, and a value of another type", () => {
    expect(shapeProblems({ ok: true, ts: 1, extra: "x" }, sample("chat.delete"))).toEqual([
      "ts: number, Slack's is string",
      "extra: not in Slack's sample",
    ]);
  });
});
