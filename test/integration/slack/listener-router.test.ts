// Buttons and modal submissions reach their handler by id through one Bolt listener each, behind
// Bolt's real signature check; an id nobody handles is acknowledged (Slack shows no error) and a
// second handler for one id is refused when it is registered, not discovered on a click.

import type { Server } from "node:http";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { mountListenerRouter } from "../../../src/adapters/slack/listener-router.js";
import { postSigned } from "../../support/slack-signing.js";

const SECRET = "signing-secret-router";
const FORM = "application/x-www-form-urlencoded";

let stop: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function startApp() {
  const receiver = new HTTPReceiver({ signingSecret: SECRET, logLevel: LogLevel.ERROR });
  const app = new App({
    receiver,
    authorize: async () => ({ botToken: "xoxb-router" }),
    logLevel: LogLevel.ERROR,
  });
  const router = mountListenerRouter(app);
  const server = (await receiver.start(0)) as Server;
  stop = () => app.stop();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { router, url: `http://127.0.0.1:${port}/slack/events` };
}

/** An app whose only handler is the "approve" button's, noting each call. */
async function startWithApprove() {
  const started = await startApp();
  const calls: string[] = [];
  started.router.action("approve", async ({ ack }) => {
    calls.push("approve");
    await ack();
  });
  return { ...started, calls };
}

const payload = (body: Record<string, unknown>) => `payload=${encodeURIComponent(JSON.stringify(body))}`;

const click = (actionId: string, actionTs: string) =>
  payload({
    type: "block_actions",
    user: { id: "U0ALICE" },
    team: { id: "T0" },
    trigger_id: `trigger-${actionTs}`,
    response_url: "http://127.0.0.1:9/none",
    actions: [{ action_id: actionId, block_id: "b", type: "button", value: "v", action_ts: actionTs }],
  });

const submission = (callbackId: string) =>
  payload({
    type: "view_submission",
    user: { id: "U0ALICE" },
    team: { id: "T0" },
    trigger_id: "trigger-view",
    view: { id: "V1", hash: "h1", callback_id: callbackId, private_metadata: "", state: { values: {} } },
  });

describe("listener router", () => {
  it("calls the handler of the clicked button and of the submitted modal, and only those", async () => {
    const { router, url } = await startApp();
    const calls: string[] = [];
    router.action("approve", async ({ ack, action }) => {
      calls.push(`approve:${"value" in action ? action.value : ""}`);
      await ack();
    });
    router.action("skip", async ({ ack }) => {
      calls.push("skip");
      await ack();
    });
    router.view("apply_modal", async ({ ack, view }) => {
      calls.push(`view:${view.id}`);
      await ack({ response_action: "clear" });
    });
    expect((await postSigned(url, SECRET, click("approve", "1.1"), FORM)).status).toBe(200);
    const viewAnswer = await postSigned(url, SECRET, submission("apply_modal"), FORM);
    expect(viewAnswer.status).toBe(200);
    expect(JSON.parse(viewAnswer.body)).toEqual({ response_action: "clear" });
    expect(calls).toEqual(["approve:v", "view:V1"]);
  });

  it("acknowledges a button and a modal nobody handles", async () => {
    const { url, calls } = await startWithApprove();
    const unknownClick = await postSigned(url, SECRET, click("from_a_future_version", "2.2"), FORM);
    const unknownView = await postSigned(url, SECRET, submission("another_modal"), FORM);
    expect([unknownClick.status, unknownView.status]).toEqual([200, 200]);
    expect(unknownClick.body).toBe("");
    expect(unknownView.body).toBe("");
    expect(calls).toEqual([]);
  });

  it("refuses a second handler for the same id", async () => {
    const { router } = await startApp();
    router.action("approve", async ({ ack }) => ack());
    expect(() => router.action("approve", async ({ ack }) => ack())).toThrow(
      /two handlers registered for approve/,
    );
    router.view("apply_modal", async ({ ack }) => ack());
    expect(() => router.view("apply_modal", async ({ ack }) => ack())).toThrow(/apply_modal/);
  });

  it("refuses an unsigned click before any handler sees it", async () => {
    const { url, calls } = await startWithApprove();
    const forged = await postSigned(url, "not-the-secret", click("approve", "3.3"), FORM);
    expect(forged.status).toBe(401);
    expect(calls).toEqual([]);
  });
});
