// A click and a form submission delivered more than once (a replayed request inside the signature
// window, a re-signed retry) are carried out once: one form opened, one catalog commit, and no
// second answer to the approver.

import { afterEach, describe, expect, it } from "vitest";
import {
  applySubmissionBody,
  buttonClickBody,
  findButton,
  type OpenedView,
} from "../../src/sim/slack/person.js";
import {
  CHANNEL,
  eventually,
  type Harness,
  quiescent,
  startWithProposal,
  WALK_APPROVER,
} from "../integration/bot/harness.js";
import { postSigned } from "../support/slack-signing.js";

const ALICE = WALK_APPROVER;
const FORM = "application/x-www-form-urlencoded";
const COMMIT = /^\/v1\/(prod\/)?namespaces\/db\/tables\/events$/;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const commits = (harness: Harness) =>
  harness.lakehouse!.requests.filter(
    (r) => r.service === "catalog" && r.method === "POST" && COMMIT.test(r.path),
  ).length;
const everything = (harness: Harness, ts: string) =>
  harness.standIn
    .thread(CHANNEL, ts)
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
    .join("\n");

/** Sends one signed request three times: twice byte for byte, then re-signed as Slack's retry. */
async function deliverThrice(harness: Harness, body: string): Promise<number[]> {
  const stamp = Math.floor(Date.now() / 1000);
  const url = harness.url("/slack/events");
  const statuses: number[] = [];
  statuses.push((await postSigned(url, harness.secret, body, FORM, {}, stamp)).status);
  statuses.push((await postSigned(url, harness.secret, body, FORM, {}, stamp)).status);
  statuses.push(
    (
      await postSigned(url, harness.secret, body, FORM, {
        "x-slack-retry-num": "1",
        "x-slack-retry-reason": "http_timeout",
      })
    ).status,
  );
  return statuses;
}

describe("replayed Slack interactions (e2e)", () => {
  it("opens the form once for a replayed click and applies a replayed submission once", async () => {
    const { harness, rootTs } = await startWithProposal("rem-replay");
    h = harness;

    const apply = findButton(harness.standIn, CHANNEL, rootTs, "playbook_apply")!;
    const click = buttonClickBody({ user: ALICE, channel: CHANNEL, standIn: harness.standIn }, apply, {
      triggerId: "7001.42.click",
      actionTs: "1764540000.123456",
    });
    expect(await deliverThrice(harness, click)).toEqual([200, 200, 200]);
    await eventually(() => harness.standIn.views.opened.length > 0, "the apply form");
    await quiescent(harness);
    expect(harness.standIn.views.opened).toHaveLength(1);

    const view = harness.standIn.views.opened[0] as Record<string, unknown>;
    const submission = applySubmissionBody(
      { user: ALICE },
      view as OpenedView,
      "retries are at the default",
      {
        triggerId: "7002.42.submit",
      },
    );
    expect(await deliverThrice(harness, submission)).toEqual([200, 200, 200]);
    await eventually(() => commits(harness) === 1, "the catalog commit");
    await eventually(() => /Applied by/.test(everything(harness, rootTs)), "the applied proposal");
    await quiescent(harness);
    expect(commits(harness)).toBe(1);
    // A repeat that got through would be answered ("already decided") to the approver.
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === ALICE)).toEqual([]);
    expect(harness.standIn.calls.filter((c) => c.method === "chat.postEphemeral")).toHaveLength(0);
  });
});
