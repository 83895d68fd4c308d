import { afterEach, describe, expect, it } from "vitest";
import { AuditTrail } from "../../src/adapters/store/audit-trail.js";
import { AutopilotStore } from "../../src/adapters/store/autopilot-store.js";
import { createKeys } from "../../src/adapters/store/keys.js";
import {
  approveStep,
  buttonClickBody,
  type FoundButton,
  findButton,
  pressButton,
} from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventsCard,
  eventsCommits,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  slackPerson,
  startHarness,
} from "../integration/bot/harness.js";
import { eventBody, postSigned, slashCommandBody } from "../support/slack-signing.js";

const ALICE = "U0ALICE";
const BOB = "U0BOB";

/** BOT_CONFIG with one autopilot policy line for db.events and the retry step. */
function botConfig(autopilot: { holdOffSeconds: number; hours?: string; mode?: string }): string {
  return `
defaults:
  approvers: [${ALICE}]
  followUp: { intervalSeconds: 60, checks: 2 }
tables:
  db.events:
    flinkJobName: events-ingest
autopilot:
  mode: ${autopilot.mode ?? "on"}
  holdOffSeconds: ${autopilot.holdOffSeconds}
  stopAfterReverts: { count: 1, windowMinutes: 60 }
  policies:
    - name: retries-anytime
      tables: [{ namespace: db, name: "ev*" }]
      steps: [raise-commit-retries]
${autopilot.hours ? `      hours: "${autopilot.hours}"` : ""}
`;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(label: string, scenario: string, config: string): Promise<Harness> {
  h = await startHarness(label, {
    scenario,
    botConfig: config,
    botOptions: { remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 } },
  });
  return h;
}

const person = slackPerson;
const commits = eventsCommits;
const rootOf = eventsCard;
const thread = (harness: Harness) => {
  const root = rootOf(harness);
  return root
    ? harness.standIn
        .thread(CHANNEL, root.ts)
        .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
        .join("\n")
    : "";
};
const store = (harness: Harness) => new AutopilotStore(harness.scope.redis, harness.scope.namespace);
const incidentId = async (harness: Harness) =>
  eventually(async () => (await harness.bots[0]!.store.openIncidentFor("db.events"))?.id, "the incident");

/** A press from a client still showing a button the bot has since removed. */
async function clickStale(harness: Harness, user: string, found: FoundButton): Promise<void> {
  const body = buttonClickBody(person(harness, user), found, {
    triggerId: `${Date.now()}.stale`,
    actionTs: `${Date.now() / 1000}`,
  });
  const posted = await postSigned(
    harness.url("/slack/events"),
    harness.secret,
    body,
    "application/x-www-form-urlencoded",
  );
  expect(posted.status).toBe(200);
}

async function fire(harness: Harness): Promise<string> {
  const posted = await postAlert(
    harness,
    alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
  );
  expect(posted.status).toBe(202);
  // With no hold-off the proposal's Apply button may be gone before it is looked at.
  // Its announcement may already be edited to say it applied.
  await eventually(
    () => /playbook_apply|Autopilot will apply|Autopilot applied/.test(thread(harness)),
    "the proposal",
  );
  return rootOf(harness)!.ts;
}

describe("autopilot (e2e)", () => {
  it("applies the retry step under its policy after the hold-off, audited as the policy, and the writer recovers", async () => {
    const harness = await start("ap-fix", "competing-appends", botConfig({ holdOffSeconds: 0 }));
    await fire(harness);
    await eventually(() => /Autopilot (will apply|applied)/.test(thread(harness)), "the announcement");
    expect(thread(harness)).toMatch(/policy retries-anytime \(BOT_CONFIG:\d+\)/);
    await eventually(() => commits(harness) === 1, "the autonomous commit");
    // The announcement says how it ended, and its Hold and Apply now are gone.
    await eventually(() => /applied raise commit retries under policy/.test(thread(harness)), "the edit");
    expect(thread(harness)).toMatch(/when the hold-off ended/);
    expect(thread(harness)).not.toMatch(/autopilot_hold|autopilot_apply_now/);
    harness.lakehouse!.advance(6 * 60_000);
    await eventually(() => /commits resumed/.test(rootOf(harness)?.text ?? ""), "the resolved card");
    await quiescent(harness);
    expect(commits(harness)).toBe(1);
    const audit = await new AuditTrail(harness.scope.redis, createKeys(harness.scope.namespace), 30).list(
      "db.events",
    );
    const approved = audit.find((row) => row.action === "approved");
    expect(approved?.actor).toBe("policy:retries-anytime");
    expect(approved?.outcome).toBe("ok");
  });

  it("reverts its own change when the writer does not recover, says so, and hands the walk back with the next step", async () => {
    const harness = await start(
      "ap-revert",
      "autopilot-retries-do-not-help",
      botConfig({ holdOffSeconds: 0 }),
    );
    await fire(harness);
    await eventually(() => /Autopilot reverted/.test(thread(harness)), "the revert note");
    await quiescent(harness);
    // One commit for the change, one for its revert.
    expect(commits(harness)).toBe(2);
    const words = thread(harness);
    expect(words).toMatch(/The next step, .+, is proposed for a person to approve/);
    // One revert in the window stops autopilot for the fleet (stopAfterReverts.count 1), announced.
    expect(await store(harness).switchState()).toBe("self-stopped");
    await eventually(
      () =>
        harness.standIn
          .messages(CHANNEL)
          .some((m) => !m.thread_ts && /Autopilot stopped itself/.test(m.text)),
      "the self-stop in the channel",
    );
  });

  it("a person's Hold hands the step back: Apply now and the hold-off's end then apply nothing", async () => {
    const harness = await start("ap-hold", "competing-appends", botConfig({ holdOffSeconds: 3600 }));
    const rootTs = await fire(harness);
    await eventually(() => /autopilot_hold/.test(thread(harness)), "the Hold button");
    await pressButton(person(harness, BOB), rootTs, "autopilot_hold");
    const applyNow = structuredClone(findButton(harness.standIn, CHANNEL, rootTs, "autopilot_apply_now")!);
    await eventually(() => /Held: autopilot will not apply/.test(thread(harness)), "the held note");
    // The announcement itself is edited: held by Bob, no buttons left to press.
    expect(thread(harness)).toMatch(/Held by <@U0BOB>/);
    expect(thread(harness)).not.toMatch(/autopilot_hold|autopilot_apply_now/);
    // A client still showing the old buttons presses Apply now: nothing is applied.
    await clickStale(harness, ALICE, applyNow);
    await quiescent(harness);
    expect(commits(harness)).toBe(0);
    expect(await store(harness).claimOf(await incidentId(harness))).toEqual({ kind: "held", by: BOB });
  });

  it("a person approves during the hold-off: the announcement says so, and a late Hold is answered only to the presser", async () => {
    const harness = await start("ap-overtaken", "competing-appends", botConfig({ holdOffSeconds: 3600 }));
    const rootTs = await fire(harness);
    await eventually(() => /autopilot_hold/.test(thread(harness)), "the Hold button");
    const hold = structuredClone(findButton(harness.standIn, CHANNEL, rootTs, "autopilot_hold")!);
    const id = await incidentId(harness);
    await approveStep(person(harness, ALICE), rootTs, "retries are at the default");
    await eventually(() => commits(harness) === 1, "the approved commit");
    await eventually(
      () =>
        /Autopilot left raise commit retries to people: people acted on this step first/.test(
          thread(harness),
        ),
      "the announcement's edit",
    );
    expect(thread(harness)).not.toMatch(/autopilot_hold|autopilot_apply_now/);
    await clickStale(harness, BOB, hold);
    const answer = await eventually(
      () => harness.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === BOB),
      "the late Hold's answer",
    );
    expect(answer.text).toMatch(/Already approved by <@U0ALICE>/);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Held/);
    expect(await store(harness).claimOf(id)).toBeUndefined();
    expect(commits(harness)).toBe(1);
  });

  it("two processes and three Apply now presses at once give one commit, approved once as the policy", async () => {
    h = await startHarness("ap-twice", {
      scenario: "competing-appends",
      botConfig: botConfig({ holdOffSeconds: 3600 }),
      bots: 2,
      botOptions: { remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 } },
    });
    const harness = h;
    const rootTs = await fire(harness);
    await eventually(() => /autopilot_apply_now/.test(thread(harness)), "the Apply now button");
    const at = (bot: number) => slackPerson(harness, ALICE, bot);
    await Promise.all([
      pressButton(at(0), rootTs, "autopilot_apply_now"),
      pressButton(at(1), rootTs, "autopilot_apply_now"),
      pressButton(at(1), rootTs, "autopilot_apply_now"),
    ]);
    await eventually(() => commits(harness) === 1, "the commit");
    await quiescent(harness);
    expect(commits(harness)).toBe(1);
    expect(thread(harness)).toMatch(
      /before the hold-off ended: Apply now was pressed\. Pressed by <@U0ALICE>/,
    );
    expect(thread(harness)).not.toMatch(/autopilot_hold|autopilot_apply_now/);
    const audit = await new AuditTrail(harness.scope.redis, createKeys(harness.scope.namespace), 30).list(
      "db.events",
    );
    expect(audit.filter((r) => r.action === "approved" && r.actor === "policy:retries-anytime")).toHaveLength(
      1,
    );
  });

  it("outside the policy's hours it announces nothing and applies nothing", async () => {
    const now = new Date(Date.now());
    // A one-hour window starting three hours from now (UTC) never holds the test's clock.
    const hh = (n: number) => String((now.getUTCHours() + n) % 24).padStart(2, "0");
    const harness = await start(
      "ap-hours",
      "competing-appends",
      botConfig({ holdOffSeconds: 0, hours: `${hh(3)}:00-${hh(4)}:00` }),
    );
    await fire(harness);
    const id = await incidentId(harness);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Autopilot will apply/);
    expect(commits(harness)).toBe(0);
    const refused = await harness.scope.redis.get(`{${harness.scope.namespace}}:autopilot:refused:${id}`);
    expect(JSON.parse(refused ?? "{}").kind).toBe("outside-hours");
    // One line says why the step is people's.
    expect(thread(harness)).toMatch(
      /Autopilot leaves raise commit retries to you: policy retries-anytime allows changes only between \d\d:00-\d\d:00 UTC\./,
    );
  });

  it("says nothing in the thread for a table no policy line covers", async () => {
    const config = botConfig({ holdOffSeconds: 0 }).replace('name: "ev*"', 'name: "other*"');
    const harness = await start("ap-silent", "competing-appends", config);
    await fire(harness);
    const id = await incidentId(harness);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Autopilot/);
    const refused = await harness.scope.redis.get(`{${harness.scope.namespace}}:autopilot:refused:${id}`);
    expect(JSON.parse(refused ?? "{}").kind).toBe("table-not-in-policy");
  });

  it("when the fleet's hourly budget is spent it announces nothing and applies nothing", async () => {
    const config = botConfig({ holdOffSeconds: 0 }).replace(
      "  holdOffSeconds: 0",
      "  holdOffSeconds: 0\n  fleetPerHour: 1",
    );
    const harness = await start("ap-budget", "competing-appends", config);
    // One autonomous change on another table within the hour.
    await store(harness).recordChange("db.other", "earlier|p1", harness.lakehouse!.clock.now() - 60_000);
    await fire(harness);
    const id = await incidentId(harness);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Autopilot will apply/);
    expect(commits(harness)).toBe(0);
    const refused = await harness.scope.redis.get(`{${harness.scope.namespace}}:autopilot:refused:${id}`);
    expect(JSON.parse(refused ?? "{}")).toEqual({ kind: "fleet-budget", perHour: 1 });
    expect(thread(harness)).toMatch(
      /Autopilot leaves raise commit retries to you: the fleet's one autonomous change this hour is made\./,
    );
  });

  it("does not act when a source the step depends on did not answer", async () => {
    const harness = await start("ap-unseen", "competing-appends", botConfig({ holdOffSeconds: 0 }));
    harness.lakehouse!.faults.inject({ service: "flink", path: /^\/jobs/, kind: "status", status: 503 });
    await postAlert(
      harness,
      alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
    );
    const id = await incidentId(harness);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Autopilot will apply/);
    expect(commits(harness)).toBe(0);
    const refused = await harness.scope.redis.get(`{${harness.scope.namespace}}:autopilot:refused:${id}`);
    expect(JSON.parse(refused ?? "{}")).toEqual({ kind: "source-unseen", sources: ["flink"] });
  });

  it("the kill switch: only an approver switches it, audited, and a process that did not take the command refuses too", async () => {
    h = await startHarness("ap-switch", {
      scenario: "competing-appends",
      botConfig: botConfig({ holdOffSeconds: 0 }),
      bots: 2,
      botOptions: { remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 } },
    });
    const harness = h;
    const say = async (user: string, text: string) => {
      const asked = await postSigned(
        harness.url("/slack/events", 1),
        harness.secret,
        slashCommandBody({ text, userId: user }),
        "application/x-www-form-urlencoded",
      );
      expect(asked.status).toBe(200);
      return eventually(
        () =>
          harness.standIn
            .messages(CHANNEL)
            .filter((m) => m.ephemeralUser === user && /Autopilot: mode/.test(m.text))
            .at(-1),
        "the autopilot reply",
      );
    };
    const refused = await say(BOB, "autopilot off");
    expect(refused.text).toMatch(/Only an approver/);
    expect(await store(harness).switchState()).toBe("on");
    const off = await say(ALICE, "autopilot off");
    expect(off.text).toMatch(/Autopilot is off for every table.*switch off/s);
    await fire(harness);
    const id = await incidentId(harness);
    await quiescent(harness);
    expect(commits(harness)).toBe(0);
    const refusal = await harness.scope.redis.get(`{${harness.scope.namespace}}:autopilot:refused:${id}`);
    expect(JSON.parse(refusal ?? "{}").kind).toBe("switched-off");
    const audit = await new AuditTrail(harness.scope.redis, createKeys(harness.scope.namespace), 30).list(
      "autopilot",
    );
    expect(audit.map((r) => [r.actor, r.action, r.outcome])).toEqual([
      [BOB, "autopilot off", "refused"],
      [ALICE, "autopilot off", "ok"],
    ]);
  });

  it("shadow mode applies nothing, then App Home and /metrics show whether people did the same and it fixed it", async () => {
    const harness = await start(
      "ap-shadow",
      "competing-appends",
      botConfig({ holdOffSeconds: 0, mode: "shadow" }),
    );
    const rootTs = await fire(harness);
    await quiescent(harness);
    expect(thread(harness)).not.toMatch(/Autopilot will apply/);
    expect(commits(harness)).toBe(0);
    // People approve the same step themselves; the writer recovers.
    await approveStep(person(harness, ALICE), rootTs, "retries are at the default");
    await eventually(() => commits(harness) === 1, "the approved commit");
    harness.lakehouse!.advance(6 * 60_000);
    await eventually(() => /commits resumed/.test(rootOf(harness)?.text ?? ""), "the resolved card");
    await quiescent(harness);
    const opened = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      eventBody(
        { type: "app_home_opened", user: ALICE, channel: "D0HOME", tab: "home", event_ts: "1.2" },
        "Ev0APHOME",
      ),
      "application/json",
    );
    expect(opened.status).toBe(200);
    const home = await eventually(() => harness.standIn.views.published[ALICE], "App Home");
    expect(JSON.stringify(home)).toMatch(
      /Autopilot: mode shadow in BOT_CONFIG, switch on.*raise commit retries: 1 of 1 agreed \(100%\), fixed 1/,
    );
    const metrics = await (await fetch(harness.url("/metrics"))).text();
    expect(metrics).toMatch(/iceberg_bot_autopilot_shadow_agreement_ratio\{step="raise-commit-retries"\} 1/);
    expect(metrics).toMatch(
      /iceberg_bot_autopilot_decisions_total\{outcome="act",reason="retries-anytime",mode="shadow"\} 1/,
    );
  });
});
