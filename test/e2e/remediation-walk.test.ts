import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ErrorCode } from "../../src/errors.js";
import { startBot } from "../../src/main.js";
import { approveStep, pressButton, submitApplyModal } from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventsCard,
  eventsCommits,
  eventually,
  type Harness,
  postAlert,
  slackPerson,
  startHarness,
} from "../integration/bot/harness.js";
import { REDIS_URL } from "../support/redis.js";
import { postSigned, slashCommandBody } from "../support/slack-signing.js";

const ALICE = "U0ALICE";
const MALLORY = "U0MALLORY";
const BOT_CONFIG = `
defaults:
  approvers: [${ALICE}, S0ONCALL]
  followUp: { intervalSeconds: 60, checks: 3 }
tables:
  db.events:
    flinkJobName: events-ingest
`;

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(label: string, scenario: string): Promise<Harness> {
  h = await startHarness(label, {
    scenario,
    botConfig: BOT_CONFIG,
    botOptions: { remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 } },
  });
  return h;
}

const person = slackPerson;
const commits = eventsCommits;
const rootOf = eventsCard;
const everything = (harness: Harness, ts: string) =>
  harness.standIn
    .thread(CHANNEL, ts)
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
    .join("\n");

/** Fires the alert and waits for the proposal under the diagnosis; returns the thread root ts. */
async function alertToProposal(harness: Harness): Promise<string> {
  const fired = await postAlert(
    harness,
    alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
  );
  expect(fired.status).toBe(202);
  return eventually(() => {
    const root = rootOf(harness);
    // The proposal is a reply in the thread; the root card carries a copy of its button too.
    const proposed = root
      ? harness.standIn
          .thread(CHANNEL, root.ts)
          .some((m) => m.ts !== root.ts && JSON.stringify(m.blocks).includes("playbook_apply"))
      : false;
    return root && proposed ? root.ts : undefined;
  }, "the proposal in the incident thread");
}

describe("guided remediation through Slack (e2e)", () => {
  it("goes from a firing alert to a resolved status card, refusing an outsider and applying a double click once", async () => {
    const harness = await start("rem-e2e", "competing-appends");
    const rootTs = await alertToProposal(harness);
    expect(everything(harness, rootTs)).toContain("commit.retry.num-retries: unset (default 4) → 10");
    await eventually(() => /waiting for approval of/.test(JSON.stringify(rootOf(harness)?.blocks)), "card");

    // Someone who is not an approver presses Apply: the form says why not, audited.
    // The click opens a placeholder at once; the worker turns it into the refusal (no form).
    await pressButton(person(harness, MALLORY), rootTs, "playbook_apply");
    const refusal = (await eventually(() => {
      const view = harness.standIn.views.opened[0] as { callback_id?: string } | undefined;
      return view?.callback_id === "playbook_apply_refused" ? view : undefined;
    }, "the refusal")) as { submit?: unknown; blocks: unknown[] };
    expect(JSON.stringify(refusal.blocks)).toMatch(/not an approver for db\.events/);
    expect(refusal.submit).toBeUndefined();
    expect(harness.standIn.views.opened).toHaveLength(1);
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === MALLORY)).toHaveLength(0);

    // The approver double-clicks and submits the form twice: one commit.
    const alice = person(harness, ALICE);
    await approveStep(alice, rootTs, "retries are at the default while Spark appends");
    await submitApplyModal(alice, "retries are at the default while Spark appends", false, 0);
    await eventually(() => commits(harness) === 1, "the catalog commit");
    await eventually(() => /Applied by/.test(everything(harness, rootTs)), "the applied proposal");

    harness.lakehouse!.advance(6 * 60_000);
    const root = await eventually(() => {
      const r = rootOf(harness);
      return r && /commits resumed/.test(r.text) ? r : undefined;
    }, "the resolved status card");
    expect(JSON.stringify(root.blocks)).toMatch(/Fixed by:.*larger commit retry budget/);
    // The verification message comes through the outbox, independently of the card edit.
    await eventually(() => /Recovered/.test(everything(harness, rootTs)), "the verification message");
    expect(everything(harness, rootTs)).toMatch(/Recovered/);
    expect(commits(harness)).toBe(1);

    // The audit trail, through /iceberg history.
    const asked = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      slashCommandBody({ text: "history db.events", userId: "U0ASKER" }),
      "application/x-www-form-urlencoded",
    );
    expect(asked.status).toBe(200);
    const history = await eventually(
      () => harness.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === "U0ASKER"),
      "the history reply",
    );
    const text = JSON.stringify(history.blocks);
    for (const action of ["proposed", "approved", "applied", "approval refused", "verified: recovered"])
      expect(text).toContain(action);
  });

  it("declares an ineffective step, offers Revert and the next step, and proposes it on click", async () => {
    const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-stuck-"));
    dirs.push(dir);
    const yaml = readFileSync("src/sim/scenarios/competing-appends.yaml", "utf8").replace(
      /recoversWhen: \{ when: table-property-at-least[^}]*\}/,
      "recoversWhen: { when: never }",
    );
    expect(yaml).toContain("when: never");
    writeFileSync(join(dir, "stuck.yaml"), yaml.replace("name: competing-appends", "name: stuck"));
    const harness = await start("rem-e2e-stuck", join(dir, "stuck.yaml"));
    const rootTs = await alertToProposal(harness);
    await approveStep(person(harness, ALICE), rootTs, "try more retries");
    await eventually(() => commits(harness) === 1, "the catalog commit");
    harness.lakehouse!.advance(10 * 60_000);
    await eventually(() => /No recovery/.test(everything(harness, rootTs)), "the ineffective verdict");
    const thread = everything(harness, rootTs);
    expect(thread).toContain("playbook_revert");
    expect(thread).toContain("Next step: Commit less often");
    // The card follows the thread in the same delivery: no recovery, with the thread's own buttons,
    // never "verifying … check 2 of 3" once the checks have ended.
    const card = await eventually(() => {
      const blocks = JSON.stringify(rootOf(harness)?.blocks ?? []);
      return /no recovery after \d+ checks/.test(blocks) ? blocks : undefined;
    }, "the card saying no recovery");
    expect(card).not.toMatch(/check \d+ of \d+/);
    expect(card).not.toContain("verifying");
    expect(card).toContain("playbook_revert");
    expect(card).toContain("Next step: Commit less often");
    expect(card).toContain(":red_circle:");

    await pressButton(person(harness, ALICE), rootTs, "playbook_next");
    await eventually(
      () => /execution\.checkpointing\.interval/.test(everything(harness, rootTs)),
      "the next proposal",
    );
  });

  it("refuses to start with a malformed playbook, naming the file and line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-playbooks-"));
    dirs.push(dir);
    writeFileSync(
      join(dir, "malformed.yaml"),
      readFileSync("test/fixtures/playbooks/malformed.yaml", "utf8"),
    );
    const config = loadConfig({ SLACK_SIGNING_SECRET: "secret-for-the-test", REDIS_URL, PORT: "0" });
    const started = startBot(config, { playbooksDir: dir, log: pino({ level: "silent" }) });
    await expect(started).rejects.toThrow(/malformed\.yaml:10/);
    await expect(started).rejects.toMatchObject({ code: ErrorCode.PlaybookInvalid });
  });
});
