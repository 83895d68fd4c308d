import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SlackStandIn, startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import { HANG_MS } from "../../support/poll.js";

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

function client(
  standIn: SlackStandIn,
  options: webApi.WebClientOptions = {},
  token = TOKEN,
): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: standIn.apiUrl,
    logger: quiet,
    retryConfig: { retries: 0 },
    ...options,
  });
}

async function platformError(promise: Promise<unknown>): Promise<webApi.WebAPIPlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(webApi.WebAPIPlatformError);
  return error as webApi.WebAPIPlatformError;
}

const section = (text: string) => ({ type: "section" as const, text: { type: "mrkdwn" as const, text } });

describe("Slack Web API stand-in driven by the real WebClient", () => {
  let standIn: SlackStandIn;

  beforeEach(async () => {
    standIn = await startSlackStandIn({
      token: TOKEN,
      botUserId: "UBOT",
      teamId: "T1",
      usergroups: { S0APPROVERS: ["U1", "U2"] },
    });
  });

  afterEach(async () => {
    await standIn.close();
  });

  it("answers auth.test with the configured identity", async () => {
    const result = await client(standIn).auth.test();
    expect(result.ok).toBe(true);
    expect(result.user_id).toBe("UBOT");
    expect(result.team_id).toBe("T1");
  });

  it("posts a root message and thread replies with increasing ts values", async () => {
    const web = client(standIn);
    const root = await web.chat.postMessage({
      channel: "C1",
      text: "card",
      blocks: [section("*db.events*")],
    });
    expect(root.ts).toBe("1732870000.000100");
    const first = await web.chat.postMessage({ channel: "C1", thread_ts: root.ts!, text: "diagnosis" });
    const second = await web.chat.postMessage({ channel: "C1", thread_ts: first.ts!, text: "proposal" });
    await web.chat.postMessage({ channel: "C2", text: "elsewhere" });

    expect(Number(first.ts) > Number(root.ts)).toBe(true);
    expect(Number(second.ts) > Number(first.ts)).toBe(true);
    const thread = standIn.thread("C1", root.ts!);
    expect(thread.map((m) => m.text)).toEqual(["card", "diagnosis", "proposal"]);
    // A reply to a reply joins the root's thread, as in Slack.
    expect(thread[2]?.thread_ts).toBe(root.ts);
    expect(thread[0]?.blocks).toEqual([section("*db.events*")]);
    expect(standIn.messages("C2").map((m) => m.text)).toEqual(["elsewhere"]);
    expect(standIn.messages()).toHaveLength(4);
  });

  it("keeps edits of a message and its previous versions", async () => {
    const web = client(standIn);
    const root = await web.chat.postMessage({
      channel: "C1",
      text: "diagnosing",
      blocks: [section("diagnosing")],
    });
    await web.chat.update({
      channel: "C1",
      ts: root.ts!,
      text: "awaiting approval",
      blocks: [section("awaiting")],
    });
    // Leaving blocks out keeps the previous blocks, as Slack does.
    const last = await web.chat.update({ channel: "C1", ts: root.ts!, text: "verifying" });
    expect(last.ok).toBe(true);

    const [message] = standIn.messages("C1");
    expect(message?.edits).toBe(2);
    expect(message?.text).toBe("verifying");
    expect(message?.blocks).toEqual([section("awaiting")]);
    expect(message?.versions.map((v) => v.text)).toEqual(["diagnosing", "awaiting approval", "verifying"]);
  });

  it("refuses updates of unknown messages and replies to unknown threads", async () => {
    const web = client(standIn);
    const missing = await platformError(web.chat.update({ channel: "C1", ts: "1.000100", text: "x" }));
    expect(missing.data.error).toBe("message_not_found");
    const orphan = await platformError(
      web.chat.postMessage({ channel: "C1", thread_ts: "1.000100", text: "x" }),
    );
    expect(orphan.data.error).toBe("thread_not_found");
    expect(standIn.messages()).toHaveLength(0);
  });

  it("stores ephemeral messages for one user and keeps them out of the thread", async () => {
    const web = client(standIn);
    const root = await web.chat.postMessage({ channel: "C1", text: "card" });
    const eph = await web.chat.postEphemeral({
      channel: "C1",
      user: "U9",
      thread_ts: root.ts!,
      text: "You can't approve this",
    });
    expect(eph.message_ts).toMatch(/^\d+\.\d{6}$/);
    const stored = standIn.messages("C1").find((m) => m.ephemeralUser === "U9");
    expect(stored?.text).toBe("You can't approve this");
    expect(standIn.thread("C1", root.ts!)).toHaveLength(1);
    const noUser = await platformError(web.apiCall("chat.postEphemeral", { channel: "C1", text: "x" }));
    expect(noUser.data.error).toBe("invalid_arguments");
  });

  it("checks required arguments like Slack", async () => {
    const web = client(standIn);
    const noText = await platformError(web.apiCall("chat.postMessage", { channel: "C1" }));
    expect(noText.data.error).toBe("no_text");
    const emptyText = await platformError(
      web.apiCall("chat.postMessage", { channel: "C1", text: "", blocks: [] }),
    );
    expect(emptyText.data.error).toBe("no_text");
    const noChannel = await platformError(web.apiCall("chat.postMessage", { text: "hi" }));
    expect(noChannel.data.error).toBe("invalid_arguments");
    expect(noChannel.data.response_metadata?.messages?.[0]).toContain("channel");
    const noTs = await platformError(web.apiCall("chat.update", { channel: "C1", text: "hi" }));
    expect(noTs.data.error).toBe("invalid_arguments");
    const tooLong = await platformError(web.chat.postMessage({ channel: "C1", text: "x".repeat(40_001) }));
    expect(tooLong.data.error).toBe("msg_too_long");
    const unknown = await platformError(web.apiCall("chat.frobnicate", {}));
    expect(unknown.data.error).toBe("unknown_method");
    expect(standIn.calls.every((c) => !c.ok)).toBe(true);
  });

  it("rejects a missing or wrong token and never records it", async () => {
    const wrong = await platformError(client(standIn, {}, "xoxb-wrong").auth.test());
    expect(wrong.data.error).toBe("invalid_auth");
    const none = await platformError(
      new webApi.WebClient(undefined, { slackApiUrl: standIn.apiUrl, logger: quiet }).auth.test(),
    );
    expect(none.data.error).toBe("not_authed");
    expect(JSON.stringify(standIn.calls)).not.toContain("xoxb-wrong");
  });

  it("enforces Block Kit limits with invalid_blocks and a pointer to the offending field", async () => {
    const web = client(standIn);
    const tooMany = await platformError(
      web.chat.postMessage({
        channel: "C1",
        text: "x",
        blocks: Array.from({ length: 51 }, () => section("a")),
      }),
    );
    expect(tooMany.data.error).toBe("invalid_blocks");

    const longSection = await platformError(
      web.chat.postMessage({ channel: "C1", text: "x", blocks: [section("a".repeat(3001))] }),
    );
    expect(longSection.data.response_metadata?.messages).toEqual([
      "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ]);

    const header = { type: "header" as const, text: { type: "plain_text" as const, text: "h".repeat(151) } };
    const button = (over: Record<string, string>) => ({
      type: "actions" as const,
      elements: [
        {
          type: "button" as const,
          text: { type: "plain_text" as const, text: "Apply" },
          action_id: "a",
          ...over,
        },
      ],
    });
    const cases: Array<[unknown, string]> = [
      [header, "/blocks/0/text/text"],
      [button({ value: "v".repeat(2001) }), "/blocks/0/elements/0/value"],
      [button({ action_id: "a".repeat(256) }), "/blocks/0/elements/0/action_id"],
      [
        {
          type: "actions",
          elements: [{ type: "button", text: { type: "plain_text", text: "b".repeat(76) } }],
        },
        "/blocks/0/elements/0/text/text",
      ],
      [{ type: "section", text: { type: "mrkdwn", text: "" } }, "/blocks/0/text/text"],
      [
        {
          type: "input",
          label: { type: "plain_text", text: "Reason" },
          element: { type: "plain_text_input" },
        },
        "/blocks/0/type",
      ],
      [{ type: "table_of_doom" }, "/blocks/0/type"],
    ];
    for (const [block, pointer] of cases) {
      const error = await platformError(
        web.apiCall("chat.postMessage", { channel: "C1", text: "x", blocks: [block] }),
      );
      expect(error.data.error).toBe("invalid_blocks");
      expect(error.data.response_metadata?.messages?.join("\n")).toContain(`[json-pointer:${pointer}]`);
    }
    // 50 blocks and 3,000 characters are still fine.
    const ok = await web.chat.postMessage({
      channel: "C1",
      text: "x",
      blocks: [section("a".repeat(3000)), ...Array.from({ length: 49 }, () => section("b"))],
    });
    expect(ok.ok).toBe(true);
    expect(standIn.messages("C1")).toHaveLength(1);
  });

  it("accepts JSON bodies with a bearer token, as Slack does", async () => {
    const response = await fetch(`${standIn.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ channel: "C1", text: "from json", blocks: [section("json")] }),
    });
    const body = (await response.json()) as { ok: boolean; ts: string };
    expect(body.ok).toBe(true);
    expect(standIn.messages("C1")[0]?.blocks).toEqual([section("json")]);
  });

  it("opens, updates and publishes views and checks them", async () => {
    const web = client(standIn);
    const modal = {
      type: "modal" as const,
      callback_id: "playbook_apply_modal",
      title: { type: "plain_text" as const, text: "Apply change" },
      submit: { type: "plain_text" as const, text: "Apply" },
      blocks: [
        {
          type: "input" as const,
          block_id: "reason",
          label: { type: "plain_text" as const, text: "Reason" },
          element: { type: "plain_text_input" as const, action_id: "reason_input" },
        },
      ],
    };
    const opened = await web.views.open({ trigger_id: "123.456.abc", view: modal });
    expect(opened.view?.id).toMatch(/^V/);
    expect(standIn.views.opened).toHaveLength(1);
    await web.views.update({ view_id: opened.view!.id!, view: { ...modal, callback_id: "second" } });
    expect((standIn.views.opened[0] as { callback_id: string }).callback_id).toBe("second");

    const noSubmit = await platformError(
      web.views.open({ trigger_id: "t", view: { ...modal, submit: undefined } }),
    );
    expect(noSubmit.data.error).toBe("invalid_arguments");
    const longTitle = await platformError(
      web.views.open({
        trigger_id: "t",
        view: { ...modal, title: { type: "plain_text", text: "t".repeat(25) } },
      }),
    );
    expect(longTitle.data.response_metadata?.messages?.[0]).toContain("/view/title/text");
    const noTrigger = await platformError(web.apiCall("views.open", { view: modal }));
    expect(noTrigger.data.error).toBe("invalid_arguments");

    await web.views.publish({ user_id: "U1", view: { type: "home", blocks: [section("home")] } });
    expect(standIn.views.published.U1).toMatchObject({ type: "home", blocks: [section("home")] });
    const homeTooBig = await platformError(
      web.views.publish({
        user_id: "U1",
        view: { type: "home", blocks: Array.from({ length: 101 }, () => section("a")) },
      }),
    );
    expect(homeTooBig.data.error).toBe("invalid_arguments");
  });

  it("lists user group members and permalinks", async () => {
    const web = client(standIn);
    const members = await web.usergroups.users.list({ usergroup: "S0APPROVERS" });
    expect(members.users).toEqual(["U1", "U2"]);
    const missing = await platformError(web.usergroups.users.list({ usergroup: "S0NOPE" }));
    expect(missing.data.error).toBe("no_such_subteam");

    const root = await web.chat.postMessage({ channel: "C1", text: "card" });
    const link = await web.chat.getPermalink({ channel: "C1", message_ts: root.ts! });
    expect(link.permalink).toContain("/archives/C1/p1732870000000100");
  });

  it("answers 429 with Retry-After; WebClient waits and the message arrives exactly once", async () => {
    standIn.inject({ method: "chat.postMessage", kind: "ratelimit", retryAfterSeconds: 1 });
    const web = client(standIn, { retryConfig: { retries: 3, minTimeout: 10, maxTimeout: 20 } });
    const result = await web.chat.postMessage({ channel: "C1", text: "after the limit" });

    expect(result.ok).toBe(true);
    expect(standIn.messages("C1").map((m) => m.text)).toEqual(["after the limit"]);
    const posts = standIn.calls.filter((c) => c.method === "chat.postMessage");
    expect(posts.map((c) => [c.status, c.error])).toEqual([
      [429, "ratelimited"],
      [200, undefined],
    ]);
    expect(posts[1]!.atMs - posts[0]!.atMs).toBeGreaterThanOrEqual(950);
  });

  it("lets a client that rejects rate-limited calls see retryAfter", async () => {
    standIn.inject({ method: "*", kind: "ratelimit", retryAfterSeconds: 7 });
    const error = await client(standIn, { rejectRateLimitedCalls: true })
      .auth.test()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(webApi.WebAPIRateLimitedError);
    expect((error as webApi.WebAPIRateLimitedError).retryAfter).toBe(7);
  });

  it("fails with 5xx for the injected number of calls, then works again", async () => {
    standIn.inject({ method: "chat.update", kind: "status", status: 503, times: 2 });
    const web = client(standIn);
    const root = await web.chat.postMessage({ channel: "C1", text: "card" });
    for (let i = 0; i < 2; i += 1) {
      const error = await web.chat
        .update({ channel: "C1", ts: root.ts!, text: "new" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(webApi.WebAPIHTTPError);
      expect((error as webApi.WebAPIHTTPError).statusCode).toBe(503);
    }
    await web.chat.update({ channel: "C1", ts: root.ts!, text: "new" });
    expect(standIn.messages("C1")[0]?.edits).toBe(1);

    // With retries on, WebClient gets through a single 500 by itself.
    standIn.inject({ method: "chat.postMessage", kind: "status", status: 500 });
    const retrying = client(standIn, { retryConfig: { retries: 2, minTimeout: 5, maxTimeout: 10 } });
    await retrying.chat.postMessage({ channel: "C1", text: "second" });
    expect(standIn.messages("C1").map((m) => m.text)).toEqual(["new", "second"]);
    standIn.inject({ method: "auth.test", kind: "status", times: 5 });
    standIn.clearFaults();
    expect((await web.auth.test()).ok).toBe(true);
  });

  it("records response_url replies and resolves waitFor when a call lands", async () => {
    const url = standIn.responseUrl("cmd1");
    const waiting = standIn.waitFor(() => standIn.responses.find((r) => r.id === "cmd1"), HANG_MS);
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", text: "Diagnosing db.events…" }),
    });
    expect(response.status).toBe(200);
    expect((await waiting).body.text).toBe("Diagnosing db.events…");

    await expect(standIn.waitFor(() => standIn.calls.length > 0, 50)).rejects.toThrow(/did not see/);
  });
});
