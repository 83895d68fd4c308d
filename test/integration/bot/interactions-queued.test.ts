// The receiver only verifies, records and acknowledges. A click or an apply-form submission is a
// queued job: with only the receiver running (no workers) nothing it causes happens, no catalog
// or Connect request and no message, until a worker starts. Apply and "Show all evidence" open a
// placeholder modal at once (the click's trigger expires in 3 s) that only a worker fills in. With
// Redis away, a slash command, a click and a submission are each told "could not record this" at
// once (ack body or response_url), no placeholder is opened, and nothing turns up in the queues
// when Redis comes back.

import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { NOT_RECORDED_TEXT } from "../../../src/adapters/slack/record.js";
import { ACTION_IDS, encodeActionValue } from "../../../src/adapters/slack/render/action-value.js";
import { SHOW_EVIDENCE_ACTION } from "../../../src/adapters/slack/render/diagnosis.js";
import { encodeSweepValue, SWEEP_ACTIONS } from "../../../src/adapters/slack/render/sweep-digest.js";
import { loadConfig } from "../../../src/config.js";
import { type Bot, startBot } from "../../../src/main.js";
import { startPrivateRedis } from "../../../src/sim/servers/redis-server.js";
import { applySubmissionBody, findButton, type OpenedView } from "../../../src/sim/slack/person.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { freePort } from "../../../src/util/free-port.js";
import { REDIS_URL } from "../../support/redis.js";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import {
  CHANNEL,
  eventually,
  type Harness,
  startWithProposal,
  WALK_APPROVER,
  WALK_BOT_CONFIG,
  WEBHOOK_TOKEN,
} from "./harness.js";

const ALICE = WALK_APPROVER;
const FORM = "application/x-www-form-urlencoded";
const COMMIT = /^\/v1\/(prod\/)?namespaces\/db\/tables\/events$/;
const user = { id: ALICE, username: "alice", name: "alice", team_id: "T0TEST" };
const form = (payload: unknown) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

function clickPayload(
  standIn: SlackStandIn,
  actionId: string,
  value: string,
  actionTs: string,
  message: { ts: string; text?: string; blocks?: unknown },
  blockId = "playbook_actions",
) {
  return {
    type: "block_actions",
    user,
    api_app_id: "A0TEST",
    token: "legacy-verification-token",
    container: { type: "message", message_ts: message.ts, channel_id: CHANNEL, is_ephemeral: false },
    trigger_id: `${actionTs}.42.click`,
    team: { id: "T0TEST", domain: "test" },
    channel: { id: CHANNEL, name: "incidents" },
    message: { type: "message", ts: message.ts, text: message.text ?? "", blocks: message.blocks ?? [] },
    response_url: standIn.responseUrl(),
    actions: [
      {
        action_id: actionId,
        block_id: blockId,
        value,
        type: "button",
        text: { type: "plain_text", text: "Button" },
        action_ts: actionTs,
      },
    ],
  };
}

let h: Harness | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

describe("clicks and submissions are queued jobs", () => {
  it("does nothing a click or a submission causes until a worker runs", async () => {
    const started = await startWithProposal("clicks-queued");
    h = started.harness;
    const { harness, rootTs } = started;
    const lakehouse = harness.lakehouse!;
    const thread = (ts: string) =>
      harness.standIn
        .thread(CHANNEL, ts)
        .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
        .join("\n");
    const apply = findButton(harness.standIn, CHANNEL, rootTs, "playbook_apply")!;
    const incidentId = (await harness.bots[0]!.store.openIncidentFor("db.events"))!.id;

    // Only a receiver from now on: the bot that ran the workers is stopped.
    const shared = {
      namespace: harness.scope.namespace,
      queuePrefix: harness.scope.queuePrefix,
      queueNames: harness.scope.queueNames,
      port: 0,
      backoffMs: 100,
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
      remediation: { followUpIntervalMs: 60_000, diagnosisWaitMs: 5000 },
      now: () => lakehouse.clock.now(),
    };
    const receiver = await startBot(harness.config, { ...shared, role: "serve" });
    const first = harness.bots.splice(0, 1, receiver)[0]!;
    await first.stop();
    const remediationQueue = new Queue(`${harness.scope.queueNames.diagnose}-remediation`, {
      connection: { url: REDIS_URL },
      prefix: harness.scope.queuePrefix,
    });
    cleanups.push(() => remediationQueue.close());
    const waiting = async () => (await remediationQueue.getJobCounts("waiting")).waiting ?? 0;
    const waitingKinds = async () => (await remediationQueue.getJobs(["waiting"])).map((j) => j.name);
    const url = harness.url("/slack/events");

    // Apply: the receiver opens a placeholder with the click's trigger (it expires in 3 s) and
    // queues the rest; who may approve, and the form itself, wait for a worker.
    const slackBeforeApply = harness.standIn.calls.length;
    const upstreamBeforeApply = lakehouse.requests.length;
    expect(
      (
        await postSigned(
          url,
          harness.secret,
          form(
            clickPayload(
              harness.standIn,
              "playbook_apply",
              apply.button.value ?? "",
              "1764540000.100001",
              apply.message,
              apply.blockId,
            ),
          ),
          FORM,
        )
      ).status,
    ).toBe(200);
    await eventually(() => harness.standIn.views.opened.length > 0, "the placeholder");
    await eventually(async () => ((await waiting()) === 1 ? true : undefined), "the queued Apply");
    expect(await waitingKinds()).toEqual(["apply-form"]);
    // Everything the receiver does for the request is over: what did not happen by now never will.
    await receiver.app!.settled();
    expect(harness.standIn.calls.slice(slackBeforeApply).map((c) => c.method)).toEqual(["views.open"]);
    expect(lakehouse.requests.length).toBe(upstreamBeforeApply);
    const placeholder = harness.standIn.views.opened[0] as { callback_id: string; submit?: unknown };
    expect(placeholder.callback_id).toBe("placeholder");
    expect(placeholder.submit).toBeUndefined();

    // A worker turns the placeholder into the form.
    const filler = await startBot(harness.config, { ...shared, role: "worker" });
    harness.bots.push(filler);
    const view = (await eventually(() => {
      const opened = harness.standIn.views.opened[0] as { callback_id?: string };
      return opened.callback_id === "playbook_apply_modal" ? opened : undefined;
    }, "the form in the placeholder")) as Record<string, unknown>;
    expect(harness.standIn.views.opened).toHaveLength(1);
    await eventually(async () => ((await waiting()) === 0 ? true : undefined), "the Apply job to run");
    harness.bots.splice(harness.bots.indexOf(filler), 1);
    await filler.stop();

    const upstreamBefore = lakehouse.requests.length;
    const slackBefore = harness.standIn.calls.length;
    const submission = applySubmissionBody({ user: ALICE }, view as OpenedView, "retries at default", {
      triggerId: "7002.42.submit",
    });
    const submitted = await postSigned(url, harness.secret, submission, FORM);
    expect(submitted.status).toBe(200);
    expect(submitted.body).not.toContain("errors");
    // Recorded, not carried out: one job waits, and nothing reached the catalog, Connect or Slack.
    await eventually(async () => ((await waiting()) === 1 ? true : undefined), "the queued approval");
    // The submission itself is the job (not an apply job a decision in the receiver would add).
    expect(await waitingKinds()).toEqual(["approval"]);
    await receiver.app!.settled();
    expect(lakehouse.requests.length).toBe(upstreamBefore);
    expect(harness.standIn.calls.length).toBe(slackBefore);
    expect(
      lakehouse.requests.filter((r) => r.service === "catalog" && r.method === "POST" && COMMIT.test(r.path)),
    ).toHaveLength(0);

    // A worker starts: the approval is carried out (one catalog commit, the proposal says so).
    const worker = await startBot(harness.config, { ...shared, role: "worker" });
    harness.bots.push(worker);
    await eventually(
      () =>
        lakehouse.requests.filter(
          (r) => r.service === "catalog" && r.method === "POST" && COMMIT.test(r.path),
        ).length === 1 || undefined,
      "the catalog commit",
    );
    await eventually(() => /Applied by/.test(thread(rootTs)) || undefined, "the applied proposal");

    // A button click with the worker stopped again: queued, no Slack call, until a worker runs.
    harness.bots.splice(harness.bots.indexOf(worker), 1);
    await worker.stop();
    const slackBeforeClick = harness.standIn.calls.length;
    const upstreamBeforeClick = lakehouse.requests.length;
    const stop = clickPayload(
      harness.standIn,
      ACTION_IDS.stop,
      apply.button.value ?? "",
      "1764540000.200002",
      apply.message,
    );
    expect((await postSigned(url, harness.secret, form(stop), FORM)).status).toBe(200);
    await eventually(async () => ((await waiting()) === 1 ? true : undefined), "the queued click");
    expect(await waitingKinds()).toEqual(["click"]);
    await receiver.app!.settled();
    expect(harness.standIn.calls.length).toBe(slackBeforeClick);
    expect(lakehouse.requests.length).toBe(upstreamBeforeClick);
    harness.bots.push(await startBot(harness.config, { ...shared, role: "worker" }));
    await eventually(async () => ((await waiting()) === 0 ? true : undefined), "the click's job to run");
    await eventually(
      () => harness.standIn.calls.length > slackBeforeClick || undefined,
      "the click's answer",
    );

    // "Show all evidence" with no worker: a placeholder and a queued job, no read of the report.
    const runner = harness.bots.pop()!;
    await runner.stop();
    const slackQueue = new Queue(harness.scope.queueNames.slack, {
      connection: { url: REDIS_URL },
      prefix: harness.scope.queuePrefix,
    });
    cleanups.push(() => slackQueue.close());
    const slackBeforeEvidence = harness.standIn.calls.length;
    const evidence = clickPayload(
      harness.standIn,
      SHOW_EVIDENCE_ACTION,
      `${incidentId}|1`,
      "1764540000.400004",
      apply.message,
      "evidence",
    );
    expect((await postSigned(url, harness.secret, form(evidence), FORM)).status).toBe(200);
    await eventually(() => harness.standIn.views.opened.length === 2 || undefined, "its placeholder");
    await eventually(
      async () =>
        (await slackQueue.getJobs(["waiting"])).some((j) => j.name === "evidence") ? true : undefined,
      "the queued evidence job",
    );
    await receiver.app!.settled();
    expect(harness.standIn.calls.slice(slackBeforeEvidence).map((c) => c.method)).toEqual(["views.open"]);
    expect(harness.standIn.views.opened[1]).toMatchObject({ callback_id: "placeholder" });
    // A digest's "Start the fix" with no worker: a queued sweep job, no incident opened for the table.
    const sweepQueue = new Queue(`${harness.scope.queueNames.diagnose}-sweep`, {
      connection: { url: REDIS_URL },
      prefix: harness.scope.queuePrefix,
    });
    cleanups.push(() => sweepQueue.close());
    const fix = clickPayload(
      harness.standIn,
      SWEEP_ACTIONS.fix,
      encodeSweepValue("db.orders", "sweep-1"),
      "1764540000.400005",
      apply.message,
      "sweep",
    );
    expect((await postSigned(url, harness.secret, form(fix), FORM)).status).toBe(200);
    await eventually(
      async () => ((await sweepQueue.getJobs(["waiting"])).some((j) => j.name === "fix") ? true : undefined),
      "the queued fix",
    );
    await receiver.app!.settled();
    expect(await receiver.store.openIncidentFor("db.orders")).toBeUndefined();
    expect(harness.standIn.calls.slice(slackBeforeEvidence).map((c) => c.method)).toEqual(["views.open"]);

    harness.bots.push(await startBot(harness.config, { ...shared, role: "worker" }));
    const filled = (await eventually(() => {
      const opened = harness.standIn.views.opened[1] as { title?: { text?: string }; blocks?: unknown };
      return /• /.test(JSON.stringify(opened.blocks)) ? opened : undefined;
    }, "the evidence in the placeholder")) as { title: { text: string } };
    expect(filled.title.text).toBe("All evidence");
  });
});

describe("interactions while Redis is away", () => {
  it("tells the person at once and queues nothing later", async () => {
    const redisPort = await freePort();
    let redis = await startPrivateRedis({ port: redisPort });
    cleanups.push(() => redis.stop("SIGKILL"));
    const standIn = await startSlackStandIn();
    cleanups.push(() => standIn.close());
    const secret = "signing-secret-redis-away";
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: standIn.apiUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ALERT_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
      INCIDENT_CHANNEL: CHANNEL,
      BOT_CONFIG: WALK_BOT_CONFIG,
      PORT: "0",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    });
    const bot: Bot = await startBot(config, { role: "serve", port: 0, queuePrefix: "{redis-away}" });
    cleanups.push(() => bot.stop());
    const base = `http://127.0.0.1:${bot.port}`;
    const remediationQueue = new Queue("remediation", {
      connection: { url: `redis://127.0.0.1:${redisPort}`, enableOfflineQueue: true },
      prefix: "{redis-away}",
    });
    remediationQueue.on("error", () => {});
    cleanups.push(() => remediationQueue.close());
    // Connected (and its version check done) before Redis goes: on a loaded machine the queue's first
    // commands were still in flight at the kill and failed the test after three reconnects.
    await remediationQueue.waitUntilReady();

    await redis.stop("SIGKILL");
    await eventually(
      async () => ((await fetch(`${base}/readyz`)).status === 503 ? true : undefined),
      "not ready",
    );

    // A slash command: the ack itself says so.
    const command = await postSigned(
      `${base}/slack/events`,
      secret,
      slashCommandBody({ text: "diagnose db.events", userId: ALICE }),
      FORM,
    );
    expect(command.status).toBe(200);
    expect(JSON.parse(command.body)).toMatchObject({ response_type: "ephemeral", text: NOT_RECORDED_TEXT });

    // A button click: answered through its response_url, which needs no Redis.
    const value = encodeActionValue({ incidentId: "inc-1", stepId: "check-checkpoints", proposalId: "p1" });
    const click = clickPayload(standIn, ACTION_IDS.skip, value, "1764540000.300003", {
      ts: "1764540000.000100",
    });
    expect((await postSigned(`${base}/slack/events`, secret, form(click), FORM)).status).toBe(200);
    const told = await eventually(
      () => standIn.responses.find((r) => r.body.text === NOT_RECORDED_TEXT),
      "the response_url answer",
    );
    expect(told.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
    // Apply too (its form is opened from the walk, which lives in Redis): told, no form opened.
    const applyClick = clickPayload(standIn, ACTION_IDS.apply, value, "1764540000.300004", {
      ts: "1764540000.000100",
    });
    expect((await postSigned(`${base}/slack/events`, secret, form(applyClick), FORM)).status).toBe(200);
    await eventually(
      () => standIn.responses.filter((r) => r.body.text === NOT_RECORDED_TEXT).length === 2 || undefined,
      "the answer to Apply",
    );
    // "Show all evidence" and a digest's "Start the fix": told the same way, no placeholder left open.
    const evidenceClick = clickPayload(standIn, SHOW_EVIDENCE_ACTION, "inc-1|1", "1764540000.300005", {
      ts: "1764540000.000100",
    });
    expect((await postSigned(`${base}/slack/events`, secret, form(evidenceClick), FORM)).status).toBe(200);
    const fixClick = clickPayload(
      standIn,
      SWEEP_ACTIONS.fix,
      encodeSweepValue("db.events", "sweep-1"),
      "1764540000.300006",
      { ts: "1764540000.000100" },
    );
    expect((await postSigned(`${base}/slack/events`, secret, form(fixClick), FORM)).status).toBe(200);
    await eventually(
      () => standIn.responses.filter((r) => r.body.text === NOT_RECORDED_TEXT).length === 4 || undefined,
      "the answers to Show all evidence and Start the fix",
    );
    expect(standIn.views.opened).toHaveLength(0);

    // A submission of the apply form: the form stays open with the reason under its field.
    const submission = {
      type: "view_submission",
      team: { id: "T0TEST", domain: "test" },
      user,
      api_app_id: "A0TEST",
      token: "legacy-verification-token",
      trigger_id: "7003.42.submit",
      view: {
        id: "V0AWAY",
        hash: "1764540000.abcdef",
        type: "modal",
        callback_id: "playbook_apply_modal",
        private_metadata: value,
        state: { values: { apply_reason: { reason: { type: "plain_text_input", value: "because" } } } },
      },
    };
    const submitted = await postSigned(`${base}/slack/events`, secret, form(submission), FORM);
    expect(submitted.status).toBe(200);
    expect(JSON.parse(submitted.body)).toEqual({
      response_action: "errors",
      errors: { apply_reason: NOT_RECORDED_TEXT },
    });

    // Redis back (empty, so anything that reaches it was sent after the outage): nothing arrives.
    redis = await startPrivateRedis({ port: redisPort });
    await eventually(
      async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined),
      "ready",
    );
    // A command left in a connection's offline queue goes out ahead of these, in order (depth()
    // reads through the queues' own connection).
    await bot.app!.settled();
    await bot.redis.ping();
    const depth = await bot.queues.depth();
    expect(Object.values(depth).reduce((a, b) => a + b, 0)).toBe(0);
    expect(Object.values(await remediationQueue.getJobCounts()).reduce((a, b) => a + b, 0)).toBe(0);
  });
});
