// Slack's upload flow against the stand-in, driven by the real WebClient and our upload adapter:
// the file lands in the thread with its bytes, and what Slack refuses is refused.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackTimelinePoster, uploadToThread } from "../../../src/adapters/slack/upload.js";
import { createSlackClient, type SlackClient } from "../../../src/adapters/slack/web-client.js";
import { buildTimeline } from "../../../src/core/chart/timeline.js";
import type { Evidence } from "../../../src/core/evidence/model.js";
import { parseTableName } from "../../../src/core/table-name.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";

const CHANNEL = "C0FILES";
// The smallest valid PNG: 1×1, one grey pixel.
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010800000000b7c3d8a30000000a49444154789c63f8ff0f00010101001d2dc7d70000000049454e44ae426082",
  "hex",
);

// The refusals below are expected; WebClient would log each one.
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

beforeAll(async () => {
  standIn = await startSlackStandIn({ channels: [CHANNEL] });
  client = createSlackClient({ token: "xoxb-stand-in", apiUrl: standIn.apiUrl, retries: 0, logger: quiet });
  rootTs = String((await client.chat.postMessage({ channel: CHANNEL, text: "incident" })).ts);
});
afterAll(() => standIn.close());

async function ticket(length: number): Promise<{ url: string; id: string }> {
  const answer = await client.files.getUploadURLExternal({ filename: "t.png", length });
  return { url: String(answer.upload_url), id: String(answer.file_id) };
}

describe("the Slack stand-in's file upload flow", () => {
  it("shares an uploaded PNG in the thread, with its bytes and detected type", async () => {
    const { fileId } = await uploadToThread(
      client,
      { channel: CHANNEL, threadTs: rootTs },
      {
        name: "db.events-commits-1.png",
        title: "Commits to db.events",
        altText: "two lanes",
        bytes: PNG,
        type: "image/png",
      },
    );
    const calls = standIn.calls.filter((c) => c.method.startsWith("files."));
    expect(calls.map((c) => c.method)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(calls[0]?.args).toMatchObject({ filename: "db.events-commits-1.png", length: String(PNG.length) });
    expect(calls[1]?.args).toMatchObject({ channel_id: CHANNEL, thread_ts: rootTs });

    const file = standIn.files().find((f) => f.id === fileId)!;
    expect(Buffer.from(file.bytes!).equals(PNG)).toBe(true);
    expect(file).toMatchObject({
      mimetype: "image/png",
      contentType: "image/png",
      title: "Commits to db.events",
    });
    expect(file.altText).toBe("two lanes");
    const [, reply] = standIn.thread(CHANNEL, rootTs);
    expect(reply?.files).toEqual([
      { id: fileId, name: "db.events-commits-1.png", title: "Commits to db.events", mimetype: "image/png" },
    ]);
    expect(file.shares).toEqual([{ channel: CHANNEL, ts: reply!.ts, thread_ts: rootTs }]);
  });

  it("refuses bytes that do not match the declared length, and then the completion", async () => {
    const { url, id } = await ticket(PNG.length + 1);
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: PNG,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/size mismatch/);
    await expect(
      client.files.completeUploadExternal({ files: [{ id }], channel_id: CHANNEL, thread_ts: rootTs }),
    ).rejects.toMatchObject({ data: { error: "file_not_found" } });
  });

  it("refuses an image content type that the bytes are not", async () => {
    const text = Buffer.from("not an image");
    const { url } = await ticket(text.length);
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: text,
    });
    expect(response.status).toBe(400);
  });

  it("refuses a thread that does not exist and a missing length", async () => {
    const { url, id } = await ticket(PNG.length);
    expect((await fetch(url, { method: "POST", body: PNG })).status).toBe(200);
    await expect(
      client.files.completeUploadExternal({
        files: [{ id }],
        channel_id: CHANNEL,
        thread_ts: "1700000000.000001",
      }),
    ).rejects.toMatchObject({ data: { error: "thread_not_found" } });
    await expect(client.apiCall("files.getUploadURLExternal", { filename: "x.png" })).rejects.toMatchObject({
      data: { error: "invalid_arguments" },
    });
    // The file is still uncompleted and can be shared once; a second completion is refused.
    await client.files.completeUploadExternal({ files: [{ id }], channel_id: CHANNEL, thread_ts: rootTs });
    await expect(
      client.files.completeUploadExternal({ files: [{ id }], channel_id: CHANNEL, thread_ts: rootTs }),
    ).rejects.toMatchObject({ data: { error: "file_not_found" } });
  });
});

describe("the commit timeline's upload, once", () => {
  const chartFor = (table: string) =>
    buildTimeline(
      {
        table: parseTableName(table),
        collectedAtMs: 1_732_870_000_000,
        sources: {},
      } as Evidence,
      1_732_870_000_000,
    );
  const filesIn = (threadTs: string, name: string) =>
    standIn.thread(CHANNEL, threadTs).flatMap((m) => (m.files ?? []).filter((f) => f.name === name));

  it("after a try that may have landed, finds the file in the thread by name instead of sharing it again", async () => {
    const poster = slackTimelinePoster(client);
    const root = String((await client.chat.postMessage({ channel: CHANNEL, text: "incident" })).ts);
    const target = { channel: CHANNEL, threadTs: root };
    const file = { name: "db.once-commits-1.png", title: "Commits to db.once", altText: "no commits" };
    const first = await poster.post(target, chartFor("db.once"), file);
    const again = await poster.post(target, chartFor("db.once"), file, { again: true });
    expect(again.fileId).toBe(first.fileId);
    expect(filesIn(root, file.name)).toHaveLength(1);
    // A try that never reached Slack: the file is shared now, once.
    const other = { ...file, name: "db.once-commits-2.png" };
    await poster.post(target, chartFor("db.once"), other, { again: true });
    expect(filesIn(root, other.name)).toHaveLength(1);
  });

  it("uploads nothing when its claim cannot be made durable first", async () => {
    const poster = slackTimelinePoster(client, {
      confirmDurable: async () => {
        throw new Error("Only 0 of 1 Redis replicas confirmed the write");
      },
    });
    const root = String((await client.chat.postMessage({ channel: CHANNEL, text: "incident" })).ts);
    const file = { name: "db.wait-commits-1.png", title: "Commits to db.wait", altText: "no commits" };
    await expect(
      poster.post({ channel: CHANNEL, threadTs: root }, chartFor("db.wait"), file),
    ).rejects.toThrow(/replicas/);
    expect(filesIn(root, file.name)).toHaveLength(0);
  });
});
