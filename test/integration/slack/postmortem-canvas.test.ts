// The postmortem document against the Slack stand-in, through the real WebClient: a canvas where
// the workspace allows one (the pictures embedded by their permalinks), the same markdown as a
// file in the thread where canvases.create answers free_team_not_allowed.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishPostmortem } from "../../../src/adapters/slack/postmortem-slack.js";
import { createSlackClient, type SlackClient } from "../../../src/adapters/slack/web-client.js";
import type { Postmortem } from "../../../src/core/history/postmortem.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";

const CHANNEL = "C0PM";
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010800000000b7c3d8a30000000a49444154789c63f8ff0f00010101001d2dc7d70000000049454e44ae426082",
  "hex",
);
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => "error" as never,
  setName() {},
};

let standIn: SlackStandIn;
let client: SlackClient;
let rootTs: string;
let fileId: string;

const PM: Postmortem = {
  incidentId: "inc-7",
  table: "db.events",
  state: "resolved",
  openedAtMs: Date.parse("2026-11-12T09:00:00Z"),
  closedAtMs: Date.parse("2026-11-12T09:20:00Z"),
  timeline: [{ kind: "alert-fired", atMs: Date.parse("2026-11-12T09:00:00Z") }],
  impact: { recovered: false },
  durations: {},
  cause: { verdict: "commit-conflict", evidence: [] },
  notHelped: [],
  open: [],
  pictures: [
    {
      name: "db.events-commits-1.png",
      title: "Commits",
      altText: "Commits to db.events",
      ref: "diagnosis-1-chart",
    },
  ],
};

beforeAll(async () => {
  standIn = await startSlackStandIn({ channels: [CHANNEL] });
  client = createSlackClient({ token: "xoxb-stand-in", apiUrl: standIn.apiUrl, retries: 0, logger: quiet });
  rootTs = String((await client.chat.postMessage({ channel: CHANNEL, text: "incident" })).ts);
  const ticket = await client.files.getUploadURLExternal({
    filename: "db.events-commits-1.png",
    length: PNG.length,
  });
  await fetch(ticket.upload_url!, { method: "POST", headers: { "content-type": "image/png" }, body: PNG });
  await client.files.completeUploadExternal({
    files: [{ id: ticket.file_id! }],
    channel_id: CHANNEL,
    thread_ts: rootTs,
  });
  fileId = ticket.file_id!;
});
afterAll(() => standIn.close());

describe("postmortem in Slack", () => {
  it("is a canvas embedding the shared picture where canvases are allowed", async () => {
    const place = await publishPostmortem(client, { channel: CHANNEL, threadTs: rootTs }, PM, {
      "diagnosis-1-chart": fileId,
    });
    expect(place.kind).toBe("canvas");
    const canvas = standIn.canvases().at(-1)!;
    expect(canvas.id).toBe(place.id);
    expect(canvas.title).toBe("Postmortem: db.events (inc-7)");
    expect(canvas.markdown).toContain(
      `![Commits to db.events](${standIn.apiUrl.replace(/api\/$/, "")}files/${fileId}/db.events-commits-1.png)`,
    );
  });

  it("falls back to the markdown file in the thread where the workspace refuses canvases", async () => {
    standIn.allowCanvases(false);
    const before = standIn.canvases().length;
    const place = await publishPostmortem(client, { channel: CHANNEL, threadTs: rootTs }, PM, {
      "diagnosis-1-chart": fileId,
    });
    expect(place).toMatchObject({ kind: "file", name: "db.events-postmortem-inc-7.md" });
    expect(standIn.canvases()).toHaveLength(before);
    const refused = standIn.calls.find((c) => c.method === "canvases.create" && !c.ok);
    expect(refused?.error).toBe("free_team_not_allowed");
    const shared = standIn.thread(CHANNEL, rootTs).flatMap((m) => m.files ?? []);
    expect(shared.map((f) => f.name)).toContain("db.events-postmortem-inc-7.md");
    const file = standIn.files().find((f) => f.id === place.id)!;
    const text = Buffer.from(file.bytes!).toString("utf8");
    expect(text).toMatch(/^# Postmortem: db\.events \(inc-7\)/);
    expect(text).toContain(`/files/${fileId}/db.events-commits-1.png)`);
  });
});
