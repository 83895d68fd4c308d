// The stand-in's history methods, message metadata and unknown-outcome faults, driven by the real
// WebClient. Response shapes are checked against the fields @slack/web-api declares for Slack's
// documented conversations.history / conversations.replies responses.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SlackStandIn, startSlackStandIn } from "../../../src/sim/slack/stand-in.js";

const TOKEN = "xoxb-test-token";

const quiet: webApi.Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => {},
};

function client(standIn: SlackStandIn, options: webApi.WebClientOptions = {}): webApi.WebClient {
  return new webApi.WebClient(TOKEN, {
    slackApiUrl: standIn.apiUrl,
    logger: quiet,
    retryConfig: { retries: 0 },
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e,
  );
}

/** Property names of one interface / the top-level object type in a web-api response .d.ts. */
function declaredFields(file: string, block: "top" | string): Set<string> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("@slack/web-api/package.json"));
  const text = readFileSync(join(root, "dist/types/response", file), "utf8");
  const start =
    block === "top" ? text.indexOf("WebAPICallResult & {") : text.indexOf(`export interface ${block} {`);
  expect(start, `${block} in ${file}`).toBeGreaterThanOrEqual(0);
  const body = text.slice(start, text.indexOf("\n}", start));
  return new Set([...body.matchAll(/^\s{4}(\w+)\??:/gm)].map((m) => m[1]!));
}

function undeclared(object: Record<string, unknown>, fields: Set<string>): string[] {
  return Object.keys(object).filter((key) => !fields.has(key));
}

const meta = (id: string) => ({ event_type: "iceberg_bot_outbox", event_payload: { id } });

describe("Slack stand-in: history, replies and message metadata", () => {
  let standIn: SlackStandIn;
  let web: webApi.WebClient;

  beforeEach(async () => {
    standIn = await startSlackStandIn({ token: TOKEN, botUserId: "UBOT", teamId: "T1" });
    web = client(standIn);
  });

  afterEach(async () => {
    await standIn.close();
  });

  it("keeps metadata sent with a post and returns it only with include_all_metadata", async () => {
    const root = await web.chat.postMessage({ channel: "C1", text: "card", metadata: meta("o-1") });
    expect(root.message?.metadata).toEqual(meta("o-1"));
    expect(standIn.messages("C1")[0]?.metadata).toEqual(meta("o-1"));

    const plain = await web.conversations.history({ channel: "C1" });
    expect(plain.messages?.[0]).not.toHaveProperty("metadata");
    const full = await web.conversations.history({ channel: "C1", include_all_metadata: true });
    expect(full.messages?.[0]?.metadata).toEqual(meta("o-1"));

    // An update without metadata keeps it; an update with metadata replaces it.
    await web.chat.update({ channel: "C1", ts: root.ts!, text: "card v2" });
    expect(standIn.messages("C1")[0]?.metadata).toEqual(meta("o-1"));
    await web.chat.update({ channel: "C1", ts: root.ts!, text: "card v3", metadata: meta("o-2") });
    const replies = await web.conversations.replies({
      channel: "C1",
      ts: root.ts!,
      include_all_metadata: true,
    });
    expect(replies.messages?.[0]?.metadata).toEqual(meta("o-2"));
  });

  it("refuses malformed metadata like Slack", async () => {
    const raw = (metadata: string) =>
      fetch(`${standIn.apiUrl}chat.postMessage`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ channel: "C1", text: "x", metadata }),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    expect((await raw("{not json")).error).toBe("invalid_metadata_format");
    expect((await raw(JSON.stringify({ event_payload: {} }))).error).toBe("invalid_metadata_schema");
    expect((await raw(JSON.stringify({ event_type: "t", event_payload: "x" }))).error).toBe(
      "invalid_metadata_schema",
    );
    expect(standIn.messages()).toEqual([]);
  });

  it("lists top-level messages newest first with thread fields, and pages with cursors", async () => {
    const posted: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      posted.push((await web.chat.postMessage({ channel: "C1", text: `root ${i}` })).ts!);
    }
    await web.chat.postMessage({ channel: "C1", thread_ts: posted[1]!, text: "reply a" });
    const lastReply = await web.chat.postMessage({ channel: "C1", thread_ts: posted[1]!, text: "reply b" });
    await web.chat.postEphemeral({ channel: "C1", user: "U1", text: "only for U1" });
    await web.chat.postMessage({ channel: "C2", text: "elsewhere" });

    const first = await web.conversations.history({ channel: "C1", limit: 2 });
    expect(first.messages?.map((m) => m.text)).toEqual(["root 4", "root 3"]);
    expect(first.has_more).toBe(true);
    const cursor = first.response_metadata?.next_cursor;
    expect(Buffer.from(cursor!, "base64").toString()).toBe(`next_ts:${posted[2]}`);

    const second = await web.conversations.history({ channel: "C1", limit: 2, cursor });
    expect(second.messages?.map((m) => m.text)).toEqual(["root 2", "root 1"]);
    const threaded = second.messages![1]!;
    expect(threaded).toMatchObject({
      thread_ts: posted[1],
      reply_count: 2,
      reply_users_count: 1,
      reply_users: ["UBOT"],
      latest_reply: lastReply.ts,
    });
    const third = await web.conversations.history({
      channel: "C1",
      limit: 2,
      cursor: second.response_metadata?.next_cursor,
    });
    expect(third.messages?.map((m) => m.text)).toEqual(["root 0"]);
    expect(third.has_more).toBe(false);
    expect(third.response_metadata?.next_cursor ?? "").toBe("");

    // Every page together is the whole history, each message once.
    const all = await web.conversations.history({ channel: "C1" });
    expect(all.messages?.map((m) => m.ts)).toEqual([...posted].reverse());
  });

  it("applies oldest, latest and inclusive as Slack does", async () => {
    const ts: string[] = [];
    for (let i = 0; i < 4; i += 1)
      ts.push((await web.chat.postMessage({ channel: "C1", text: `m${i}` })).ts!);
    const texts = async (args: Record<string, unknown>) =>
      (await web.conversations.history({ channel: "C1", ...args })).messages?.map((m) => m.text);

    expect(await texts({ oldest: ts[1] })).toEqual(["m3", "m2"]);
    expect(await texts({ oldest: ts[1], inclusive: true })).toEqual(["m3", "m2", "m1"]);
    expect(await texts({ latest: ts[2] })).toEqual(["m1", "m0"]);
    expect(await texts({ oldest: ts[0], latest: ts[3], inclusive: true, limit: 3 })).toEqual([
      "m3",
      "m2",
      "m1",
    ]);
    // Whole seconds are accepted, as Slack accepts any Unix timestamp.
    expect(await texts({ oldest: "1732870001" })).toEqual([]);

    const bad = await failure(web.conversations.history({ channel: "C1", oldest: "yesterday" }));
    expect((bad as webApi.WebAPIPlatformError).data.error).toBe("invalid_ts_oldest");
    const cursor = await failure(web.conversations.history({ channel: "C1", cursor: "bm9wZQ==" }));
    expect((cursor as webApi.WebAPIPlatformError).data.error).toBe("invalid_cursor");
  });

  it("returns a thread parent first then replies oldest first, the parent leading every page", async () => {
    const root = await web.chat.postMessage({ channel: "C1", text: "card", metadata: meta("root") });
    const replies: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reply = await web.chat.postMessage({
        channel: "C1",
        thread_ts: root.ts!,
        text: `reply ${i}`,
        metadata: meta(`r${i}`),
      });
      replies.push(reply.ts!);
    }
    await web.chat.postEphemeral({ channel: "C1", user: "U1", thread_ts: root.ts!, text: "private" });

    const first = await web.conversations.replies({
      channel: "C1",
      ts: root.ts!,
      limit: 2,
      include_all_metadata: true,
    });
    expect(first.messages?.map((m) => m.text)).toEqual(["card", "reply 0", "reply 1"]);
    expect(
      first.messages?.map((m) => (m.metadata?.event_payload as { id?: string } | undefined)?.id),
    ).toEqual(["root", "r0", "r1"]);
    expect(first.messages?.[1]).toMatchObject({ thread_ts: root.ts, parent_user_id: "UBOT" });
    expect(first.has_more).toBe(true);
    const second = await web.conversations.replies({
      channel: "C1",
      ts: root.ts!,
      limit: 2,
      cursor: first.response_metadata?.next_cursor,
    });
    expect(second.messages?.map((m) => m.text)).toEqual(["card", "reply 2"]);
    expect(second.has_more).toBe(false);

    // The window applies to replies; naming a reply's ts returns the same thread.
    const windowed = await web.conversations.replies({ channel: "C1", ts: replies[2]!, oldest: replies[0] });
    expect(windowed.messages?.map((m) => m.text)).toEqual(["card", "reply 1", "reply 2"]);

    const lonely = await web.chat.postMessage({ channel: "C1", text: "no replies" });
    const single = await web.conversations.replies({ channel: "C1", ts: lonely.ts! });
    expect(single.messages?.map((m) => m.text)).toEqual(["no replies"]);
    expect(single.messages?.[0]).not.toHaveProperty("thread_ts");

    const missing = await failure(web.conversations.replies({ channel: "C1", ts: "1732870999.000100" }));
    expect((missing as webApi.WebAPIPlatformError).data.error).toBe("thread_not_found");
  });

  it("answers only fields Slack documents for these responses", async () => {
    const root = await web.chat.postMessage({ channel: "C1", text: "card", metadata: meta("x") });
    await web.chat.postMessage({ channel: "C1", thread_ts: root.ts!, text: "reply", metadata: meta("y") });
    await web.chat.postMessage({ channel: "C1", text: "later" });

    const history = await web.conversations.history({ channel: "C1", limit: 1, include_all_metadata: true });
    const replies = await web.conversations.replies({
      channel: "C1",
      ts: root.ts!,
      include_all_metadata: true,
    });
    const historyTop = declaredFields("ConversationsHistoryResponse.d.ts", "top");
    const historyMessage = declaredFields("ConversationsHistoryResponse.d.ts", "MessageElement");
    const repliesTop = declaredFields("ConversationsRepliesResponse.d.ts", "top");
    const repliesMessage = declaredFields("ConversationsRepliesResponse.d.ts", "MessageElement");
    const metadataFields = declaredFields("ConversationsHistoryResponse.d.ts", "FluffyMetadata");

    // WebClient adds response_metadata.scopes etc. from headers; compare the stand-in's own body.
    const historyBody = standIn.calls.find((c) => c.method === "conversations.history")!.response as Record<
      string,
      unknown
    >;
    const repliesBody = standIn.calls.find((c) => c.method === "conversations.replies")!.response as Record<
      string,
      unknown
    >;
    expect(undeclared(historyBody, historyTop)).toEqual([]);
    expect(undeclared(repliesBody, repliesTop)).toEqual([]);
    for (const message of history.messages ?? []) {
      expect(undeclared(message as Record<string, unknown>, historyMessage)).toEqual([]);
    }
    for (const message of replies.messages ?? []) {
      expect(undeclared(message as Record<string, unknown>, repliesMessage)).toEqual([]);
      expect(undeclared(message.metadata as Record<string, unknown>, metadataFields)).toEqual([]);
    }
    expect(historyBody).toMatchObject({ ok: true, has_more: true, pin_count: 0 });
    expect(typeof (historyBody.response_metadata as { next_cursor: unknown }).next_cursor).toBe("string");
  });
});

describe("Slack stand-in: faults whose outcome the caller cannot know", () => {
  let standIn: SlackStandIn;
  let clock: number;

  beforeEach(async () => {
    clock = 1_000_000;
    standIn = await startSlackStandIn({ token: TOKEN, now: () => clock });
  });

  afterEach(async () => {
    await standIn.close();
  });

  it("delivered but answered late: stored once, the client times out, the late answer arrives after", async () => {
    // Generous margins: on a loaded machine a 100 ms timeout could expire before the request is sent.
    standIn.inject({ method: "chat.postMessage", kind: "late", delayMs: 1500 });
    const web = client(standIn, { timeout: 1000 });

    const error = await failure(web.chat.postMessage({ channel: "C1", text: "card" }));
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe(webApi.ErrorCode.RequestError);
    // Stored before the client gave up: the post happened although the caller saw a failure.
    expect(standIn.messages("C1").map((m) => m.text)).toEqual(["card"]);
    const call = standIn.calls.at(-1)!;
    expect(call).toMatchObject({ method: "chat.postMessage", fault: "late", carriedOut: true, ok: true });
    await standIn.settled();
    expect(standIn.messages("C1")).toHaveLength(1);

    // The fault was used up: the next post is answered at once.
    await web.chat.postMessage({ channel: "C1", text: "next" });
    expect(standIn.messages("C1")).toHaveLength(2);
  });

  it("a client that retries a late answer on its own posts duplicates", async () => {
    standIn.inject({ method: "chat.postMessage", kind: "late", delayMs: 1000, times: 2 });
    const web = client(standIn, { timeout: 600, retryConfig: { retries: 2, minTimeout: 5, maxTimeout: 10 } });
    const result = await web.chat.postMessage({ channel: "C1", text: "card" });
    expect(result.ok).toBe(true);
    // Three requests, three roots: the behaviour an outbox has to reconcile away.
    expect(standIn.messages("C1").map((m) => m.text)).toEqual(["card", "card", "card"]);
  });

  it("delivered then connection reset: stored, the client sees a request error", async () => {
    const web = client(standIn);
    const root = await web.chat.postMessage({ channel: "C1", text: "card" });
    standIn.inject({ method: "chat.postMessage", kind: "reset" });
    const error = await failure(
      web.chat.postMessage({ channel: "C1", thread_ts: root.ts!, text: "diagnosis" }),
    );
    expect((error as { code?: string }).code).toBe(webApi.ErrorCode.RequestError);
    expect(standIn.thread("C1", root.ts!).map((m) => m.text)).toEqual(["card", "diagnosis"]);
    expect(standIn.calls.at(-1)).toMatchObject({ fault: "reset", status: 0, ok: false, carriedOut: true });
  });

  it("5xx after sending stores the message; a refused call under such a fault stores nothing", async () => {
    standIn.inject({ method: "chat.postMessage", kind: "status", status: 502, delivered: true, times: 2 });
    const web = client(standIn);
    const error = await failure(web.chat.postMessage({ channel: "C1", text: "card" }));
    expect((error as webApi.WebAPIHTTPError).statusCode).toBe(502);
    expect(standIn.messages("C1")).toHaveLength(1);
    // Bad arguments are refused before anything is stored; Slack's own error wins.
    const refused = await failure(web.chat.postMessage({ channel: "C1", text: "" }));
    expect((refused as webApi.WebAPIPlatformError).data.error).toBe("no_text");
    expect(standIn.calls.at(-1)).toMatchObject({ fault: "status", carriedOut: false });
    expect(standIn.messages("C1")).toHaveLength(1);
  });

  it("answers 5xx for a time window, then works; a match limits the fault to thread replies", async () => {
    const web = client(standIn);
    const root = await web.chat.postMessage({ channel: "C1", text: "card" });
    standIn.inject({
      method: "chat.postMessage",
      kind: "status",
      status: 503,
      forMs: 75_000,
      match: (args) => args.thread_ts !== undefined,
    });
    for (let i = 0; i < 3; i += 1) {
      const error = await failure(
        web.chat.postMessage({ channel: "C1", thread_ts: root.ts!, text: "reply" }),
      );
      expect((error as webApi.WebAPIHTTPError).statusCode).toBe(503);
      clock += 20_000;
    }
    // Roots are not matched, so they go through during the outage.
    await web.chat.postMessage({ channel: "C1", text: "other root" });
    expect(standIn.thread("C1", root.ts!)).toHaveLength(1);

    clock += 15_001; // 75 s after injection
    await web.chat.postMessage({ channel: "C1", thread_ts: root.ts!, text: "reply" });
    expect(standIn.thread("C1", root.ts!).map((m) => m.text)).toEqual(["card", "reply"]);
    expect(standIn.calls.filter((c) => c.status === 503)).toHaveLength(3);
  });
});
