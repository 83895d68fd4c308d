// Readiness that means something: a token Slack refuses at run time, a channel the bot is not in,
// and messages owed to Slack too long each make /readyz fail with the reason, raise
// iceberg_bot_health_failing, and are logged once per change of state (not on every round or
// probe); each clears when Slack takes the bot's messages again, and the card then says its
// thread's messages came late.

import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../support/poll.js";
import {
  alertmanagerBody,
  CHANNEL,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "./harness.js";

function captureLog() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, destination), lines };
}

async function readyz(h: Harness, query = "") {
  const response = await fetch(h.url(`/readyz${query}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function failingGauge(h: Harness, check: string): Promise<number> {
  const text = await (await fetch(h.url("/metrics"))).text();
  const line = text.split("\n").find((l) => l.startsWith(`iceberg_bot_health_failing{check="${check}"}`));
  return Number(line?.split(" ")[1]);
}

describe("readiness", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("fails while Slack refuses the token, says why once in the log, and recovers", async () => {
    const { log, lines } = captureLog();
    const diagnosis = fixedDiagnosis();
    h = await startHarness("ready-auth", {
      botOptions: { log, diagnose: diagnosis.diagnose, health: { checkEveryMs: 100 } },
    });
    const harness = h;
    expect((await readyz(harness)).status).toBe(200);
    expect(await failingGauge(harness, "slack_auth")).toBe(0);

    // The token is revoked: every call Slack gets is refused.
    harness.standIn.inject({ method: "*", kind: "refuse", error: "token_revoked", times: 1_000_000 });
    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
    const refused = () => harness.standIn.calls.filter((c) => c.error === "token_revoked").length;
    await until(async () => (await readyz(harness)).status === 503, "readyz to fail");
    const { body } = await readyz(harness);
    expect(body.ok).toBe(false);
    expect(String((body.failing as Record<string, string>).slack_auth)).toContain("token_revoked");
    expect(await failingGauge(harness, "slack_auth")).toBe(1);
    // A receiver's own probe may look at Redis alone.
    expect((await readyz(harness, "?check=redis")).status).toBe(200);

    // Several more refusals and monitor rounds: still one line saying so.
    const before = refused();
    await until(() => refused() >= before + 2, "the poster to try again twice");
    for (let i = 0; i < 5; i++) await readyz(harness);
    const notReady = lines.filter((l) => l.check === "slack_auth" && String(l.msg).startsWith("not ready"));
    expect(notReady).toHaveLength(1);
    expect(notReady[0]).toMatchObject({ level: 40 });

    // The token works again: the next delivery clears it, and that is logged once too.
    harness.standIn.clearFaults();
    await until(async () => (await readyz(harness)).status === 200, "readyz to pass again");
    expect(await failingGauge(harness, "slack_auth")).toBe(0);
    expect(
      lines.filter((l) => l.check === "slack_auth" && String(l.msg).startsWith("ready again")),
    ).toHaveLength(1);
  });

  it("fails while the bot is not in a channel it posts to, naming the channel", async () => {
    const diagnosis = fixedDiagnosis();
    h = await startHarness("ready-channel", {
      botOptions: { diagnose: diagnosis.diagnose, health: { checkEveryMs: 100 } },
    });
    const harness = h;
    harness.standIn.inject({
      method: "chat.postMessage",
      kind: "refuse",
      error: "not_in_channel",
      times: 1_000_000,
      match: (args) => args.channel === CHANNEL,
    });
    await postAlert(harness, alertmanagerBody([{ table: "db.events" }]));
    await until(async () => (await readyz(harness)).status === 503, "readyz to fail");
    const failing = (await readyz(harness)).body.failing as Record<string, string>;
    expect(failing.slack_channel).toContain(CHANNEL);
    expect(failing.slack_channel).toContain("not_in_channel");
    expect(failing.slack_channel).toContain("/invite");
    expect(failing.slack_auth).toBeUndefined();
    expect(await failingGauge(harness, "slack_channel")).toBe(1);

    // Invited: the root is posted and readiness passes again.
    harness.standIn.clearFaults();
    await until(() => harness.standIn.messages(CHANNEL).length >= 1, "the root to be posted");
    await until(async () => (await readyz(harness)).status === 200, "readyz to pass again");
  });

  it("fails while a message has been owed to Slack longer than slackDelivery.delayedAfterSeconds", async () => {
    // The bot's wall clock runs ahead at will; Slack answers 500 until the test clears it.
    let ahead = 0;
    const diagnosis = fixedDiagnosis();
    h = await startHarness("ready-delivery", {
      botConfig: "slackDelivery:\n  delayedAfterSeconds: 60\n",
      botOptions: {
        diagnose: diagnosis.diagnose,
        wallClock: () => Date.now() + ahead,
        health: { checkEveryMs: 100 },
      },
    });
    const harness = h;
    harness.standIn.inject({ method: "chat.postMessage", kind: "status", status: 500, times: 1_000_000 });
    await postAlert(harness, alertmanagerBody([{ table: "db.events" }]));
    await until(() => harness.standIn.calls.some((c) => c.status === 500), "Slack to fail a post");
    expect((await readyz(harness)).status).toBe(200);
    ahead = 61_000;
    await until(async () => (await readyz(harness)).status === 503, "readyz to fail");
    const failing = (await readyz(harness)).body.failing as Record<string, string>;
    expect(failing.slack_delivery).toContain("more than 60 s");
    expect(await failingGauge(harness, "slack_delivery")).toBe(1);

    harness.standIn.clearFaults();
    await until(async () => (await readyz(harness)).status === 200, "readyz to pass again");
    // The card tells the thread its messages came late.
    const card = await until(
      () =>
        harness.standIn
          .messages(CHANNEL)
          .find((m) => m.thread_ts === undefined && JSON.stringify(m.blocks).includes("reached Slack up to")),
      "the card's note on the delay",
    );
    expect(JSON.stringify(card.blocks)).toMatch(/up to 1 min[^"]* late/);
  });
});
