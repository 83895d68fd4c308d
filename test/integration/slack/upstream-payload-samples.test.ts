// Slack's own request samples (test/fixtures/upstream/slack, from slackapi/java-slack-sdk) as the
// contract of what the bot is sent: each payload the bot handles (the slash command, a button's
// block_actions, the apply form's view_submission, app_home_opened) is Slack's sample with only
// the values the bot reads filled in, at paths the sample already has, every other field left as
// Slack sends it. Each is signed and posted to a running bot, where Bolt's real verification and
// parsing take it, and the bot's answer is checked.

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPLY_MODAL, encodeActionValue } from "../../../src/adapters/slack/render/action-value.js";
import { SHOW_EVIDENCE_ACTION } from "../../../src/adapters/slack/render/diagnosis.js";
import { postSigned } from "../../support/slack-signing.js";
import { CHANNEL, eventually, type Harness, startHarness } from "../bot/harness.js";

const SAMPLES = "test/fixtures/upstream/slack";
const FORM = "application/x-www-form-urlencoded";
const USER = "U0SAMPLE";
const TEAM = "T0SAMPLE";

type Json = Record<string, unknown>;
const sample = (file: string): Json => JSON.parse(readFileSync(`${SAMPLES}/${file}`, "utf8")) as Json;

/**
 * Sets `value` at a dotted path (array indexes as numbers) that Slack's sample has: the bot reads
 * only fields Slack sends. `create` allows a path whose last key the sample leaves out (a view's
 * state values are keyed by the view's own block ids, so the sample's state is empty).
 */
function fill(payload: Json, path: string, value: unknown, create = false): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  let at: unknown = payload;
  for (const key of keys) {
    at = (at as Json)[key];
    if (typeof at !== "object" || at === null) throw new Error(`${path}: ${key} is not in Slack's sample`);
  }
  if (!create && !(last in (at as Json))) throw new Error(`${path}: not in Slack's sample`);
  (at as Json)[last] = value;
}

describe("Slack's request samples through Bolt's verification, as the bot handles them", () => {
  let h: Harness;
  let incidentId: string;
  beforeAll(async () => {
    h = await startHarness("upstream-payloads");
    incidentId = (await h.bots[0]!.store.openOrJoin("db.events", CHANNEL, Date.now())).incident.id;
  });
  afterAll(async () => {
    await h.close();
  });
  const post = (body: string, type: string) => postSigned(h.url("/slack/events"), h.secret, body, type);

  it("a slash command: /iceberg status answered, then the list sent to whoever asked", async () => {
    const command = sample("app-backend/SlashCommandPayload.json");
    for (const [path, value] of Object.entries({
      command: "/iceberg",
      text: "status",
      user_id: USER,
      user_name: "sample",
      channel_id: CHANNEL,
      team_id: TEAM,
      trigger_id: "13345224609.738474920.8088930838d88f008e0",
      response_url: "http://127.0.0.1:9/commands",
    }))
      fill(command, path, value);
    const form = new URLSearchParams(
      Object.entries(command).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const answer = await post(form, FORM);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).text).toMatch(/open incidents/i);
    const sent = await eventually(() => h.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === USER));
    expect(JSON.stringify(sent.blocks) + sent.text).toContain("db.events");
  });

  it("block_actions: 'Show all evidence' opens its modal with the click's trigger and queues the evidence", async () => {
    const click = sample("app-backend/BlockActionPayload.json");
    const trigger = "13345224609.738474920.8088930838d88f008e1";
    for (const [path, value] of Object.entries({
      "user.id": USER,
      "user.team_id": TEAM,
      "team.id": TEAM,
      trigger_id: trigger,
      "container.type": "message",
      "container.channel_id": CHANNEL,
      "container.message_ts": "1732870000.000100",
      "channel.id": CHANNEL,
      "actions.0.type": "button",
      "actions.0.action_id": SHOW_EVIDENCE_ACTION,
      "actions.0.block_id": "evidence",
      "actions.0.value": `${incidentId}|1`,
      "actions.0.action_ts": "1732870001.000200",
    }))
      fill(click, path, value);
    const answer = await post(new URLSearchParams({ payload: JSON.stringify(click) }).toString(), FORM);
    expect(answer.status).toBe(200);
    const opened = await eventually(() =>
      h.standIn.calls.find((c) => c.method === "views.open" && c.args.trigger_id === trigger),
    );
    expect(opened.ok).toBe(true);
    const job = await eventually(async () =>
      (await h.bots[0]!.queues.slack.getJobs(["waiting", "active", "completed", "failed", "delayed"])).find(
        (j) => j.data.kind === "evidence",
      ),
    );
    expect(job.data).toMatchObject({ kind: "evidence", incidentId, n: 1 });
  });

  it("view_submission: the apply form's approval is recorded for a worker, with its reason and confirmation", async () => {
    const submission = sample("app-backend/ViewSubmissionPayload.json");
    const value = { incidentId, stepId: "raise-commit-retries", proposalId: "p-sample" } as const;
    for (const [path, v] of Object.entries({
      "user.id": USER,
      "user.team_id": TEAM,
      "team.id": TEAM,
      trigger_id: "13345224609.738474920.8088930838d88f008e2",
      "view.id": "V0SAMPLE",
      "view.type": "modal",
      "view.callback_id": APPLY_MODAL.callbackId,
      "view.private_metadata": encodeActionValue(value),
      "view.hash": "1732870002.sample",
    }))
      fill(submission, path, v);
    fill(
      submission,
      "view.state.values",
      {
        [APPLY_MODAL.reasonBlockId]: {
          [APPLY_MODAL.reasonActionId]: { type: "plain_text_input", value: "default retries are too low" },
        },
        [APPLY_MODAL.confirmBlockId]: {
          [APPLY_MODAL.confirmActionId]: {
            type: "checkboxes",
            selected_options: [
              { text: { type: "plain_text", text: "Yes" }, value: APPLY_MODAL.confirmValue },
            ],
          },
        },
      },
      true,
    );
    const answer = await post(new URLSearchParams({ payload: JSON.stringify(submission) }).toString(), FORM);
    expect(answer.status).toBe(200);
    // Recorded: the form closes (an empty ack), no errors shown in it.
    expect(answer.body).not.toContain("errors");
    const job = await eventually(async () =>
      (
        await h.bots[0]!.remediationQueue.queue.getJobs([
          "waiting",
          "active",
          "completed",
          "failed",
          "delayed",
        ])
      ).find((j) => j.data.kind === "approval"),
    );
    expect(job.data).toMatchObject({
      kind: "approval",
      ...value,
      user: USER,
      reason: "default retries are too low",
      confirmed: true,
    });
  });

  it("app_home_opened: App Home published for the person who opened it", async () => {
    const envelope = sample("events/AppHomeOpenedPayload.json");
    for (const [path, value] of Object.entries({
      type: "event_callback",
      team_id: TEAM,
      api_app_id: "A0SAMPLE",
      event_id: "Ev0SAMPLE01",
      event_time: Math.floor(Date.now() / 1000),
      "event.user": USER,
      "event.channel": "D0SAMPLE",
      "event.tab": "home",
      "event.event_ts": "1732870003.000300",
    }))
      fill(envelope, path, value);
    const answer = await post(JSON.stringify(envelope), "application/json");
    expect(answer.status).toBe(200);
    const home = await eventually(() => h.standIn.views.published[USER]);
    expect(JSON.stringify(home)).toContain("db.events");
  });

  it("fills only what Slack's samples have", () => {
    expect(() => fill(sample("app-backend/SlashCommandPayload.json"), "channel", "C1")).toThrow(
      /not in Slack's sample/,
    );
    expect(() => fill(sample("app-backend/BlockActionPayload.json"), "actions.0.actionId", "x")).toThrow(
      /not in Slack's sample/,
    );
  });
});
