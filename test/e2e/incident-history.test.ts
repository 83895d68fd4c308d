// One simulated table fails twice the same way. The first time, raising commit retries does not
// help and committing less often (done by hand) does; the second time the thread names the first
// incident, proposes committing less often first, and says raising retries did not help. When
// nothing fixed the first one, the second proposes the retries again (the playbook's first step),
// marked as having not helped.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSimClock } from "../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { approveStep, pressButton, type SlackPerson } from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  startHarness,
} from "../integration/bot/harness.js";

const ALICE = "U0ALICE";
const BOT_CONFIG = `
defaults:
  approvers: [${ALICE}]
  followUp: { intervalSeconds: 60, checks: 3 }
tables:
  db.events:
    flinkJobName: events-ingest
`;
const DAY_MS = 86_400_000;

let h: Harness | undefined;
const lakehouses: Lakehouse[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const l of lakehouses.splice(0)) await l.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const person = (harness: Harness, user: string): SlackPerson => ({
  botUrl: harness.url("/slack/events"),
  signingSecret: harness.secret,
  standIn: harness.standIn,
  channel: CHANNEL,
  user,
});
const roots = (harness: Harness) =>
  harness.standIn
    .messages(CHANNEL)
    .filter((m) => !m.thread_ts && !m.ephemeralUser && /db\.events/.test(m.text));
const everything = (harness: Harness, ts: string) =>
  harness.standIn
    .thread(CHANNEL, ts)
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
    .join("\n");

/** competing-appends where more retries never bring the writer back (a person's fix does). */
function stuckScenario(): string {
  const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-history-"));
  dirs.push(dir);
  const yaml = readFileSync("src/sim/scenarios/competing-appends.yaml", "utf8").replace(
    /recoversWhen: \{ when: table-property-at-least[^}]*\}/,
    "recoversWhen: { when: never }",
  );
  expect(yaml).toContain("when: never");
  const path = join(dir, "stuck.yaml");
  writeFileSync(path, yaml.replace("name: competing-appends", "name: stuck"));
  return path;
}

async function alertToProposal(harness: Harness, nth: number): Promise<string> {
  const fired = await postAlert(
    harness,
    alertmanagerBody([
      { table: "db.events", labels: { job_name: "events-ingest" }, fingerprint: `fp-${nth}` },
    ]),
  );
  expect(fired.status).toBe(202);
  return eventually(() => {
    const root = roots(harness)[nth - 1];
    return root && everything(harness, root.ts).includes("playbook_skip") ? root.ts : undefined;
  }, `proposal ${nth}`);
}

async function setUp(): Promise<{
  harness: Harness;
  alice: SlackPerson;
  lakehouse: Lakehouse;
  /** The same table failing the same way a day later: a fresh lakehouse on the same ports. */
  again: () => Promise<Lakehouse>;
}> {
  const scenario = stuckScenario();
  let current = await startLakehouse({ scenario });
  lakehouses.push(current);
  const ports = {
    catalog: Number(new URL(current.urls.catalog).port),
    flink: Number(new URL(current.urls.flink).port),
    connect: Number(new URL(current.urls.connect).port),
    prometheus: Number(new URL(current.urls.prometheus).port),
  };
  const harness = await startHarness("history-e2e", {
    botConfig: BOT_CONFIG,
    env: {
      ICEBERG_CATALOG_URL: current.urls.catalog,
      FLINK_REST_URL: current.urls.flink,
      CONNECT_REST_URL: current.urls.connect,
      PROMETHEUS_URL: current.urls.prometheus,
    },
    botOptions: {
      now: () => current.clock.now(),
      remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 },
    },
  });
  h = harness;
  const again = async () => {
    const old = current;
    lakehouses.splice(lakehouses.indexOf(old), 1);
    await old.close();
    current = await startLakehouse({ scenario, ports, clock: createSimClock(old.clock.now() + DAY_MS) });
    lakehouses.push(current);
    return current;
  };
  return { harness, alice: person(harness, ALICE), lakehouse: current, again };
}

describe("memory per table (e2e)", () => {
  it("the second incident names the first, proposes its fixing step first and says what did not help", async () => {
    const { harness, alice, lakehouse, again } = await setUp();
    let current = lakehouse;

    // The first incident: more retries do not help; committing less often, done by hand, does.
    const first = await alertToProposal(harness, 1);
    const firstOpenedMs = current.clock.now();
    expect(everything(harness, first)).toContain("commit.retry.num-retries");
    expect(everything(harness, first)).not.toContain("Seen on");
    await approveStep(alice, first, "retries are at the default");
    await eventually(() => /Applied by/.test(everything(harness, first)), "the applied proposal");
    current.advance(10 * 60_000);
    await eventually(() => /No recovery/.test(everything(harness, first)), "the ineffective verdict");
    await pressButton(alice, first, "playbook_next");
    await eventually(
      () => /execution\.checkpointing\.interval/.test(everything(harness, first)),
      "the next proposal",
    );
    expect(current.fixByHand("db.events")).toBeGreaterThan(0);
    await pressButton(alice, first, "playbook_done");
    await eventually(() => /Done by hand by/.test(everything(harness, first)), "done by hand");
    current.advance(6 * 60_000);
    await eventually(
      () => /commits resumed/.test(roots(harness)[0]?.text ?? ""),
      "the first incident resolved",
    );

    // A day later the same table fails the same way again (a fresh lakehouse on the same ports).
    current = await again();

    const second = await alertToProposal(harness, 2);
    const thread = harness.standIn.thread(CHANNEL, second);
    const text = everything(harness, second);
    // One line names the first incident by its day (a Slack date token) and what fixed it.
    const seen = thread.filter((m) => /Seen on/.test(`${m.text}${JSON.stringify(m.blocks)}`));
    expect(seen).toHaveLength(1);
    const seenText = JSON.stringify(seen[0]!.blocks);
    expect(seenText).toContain(`<!date^${Math.floor(firstOpenedMs / 1000)}^{date_short}|`);
    expect(seenText).toMatch(/commit less often\* fixed it in/);
    expect(seenText).toContain("Did not help then: raise commit retries");
    // It comes after the diagnosis and before the proposal.
    const order = thread.map((m) => `${m.text}${JSON.stringify(m.blocks)}`);
    const seenAt = order.findIndex((t) => /Seen on/.test(t));
    const proposalAt = order.findIndex((t) => t.includes("playbook_skip"));
    expect(seenAt).toBeGreaterThan(0);
    expect(proposalAt).toBeGreaterThan(seenAt);
    // The step that fixed it is offered first (not the retries the playbook would start with),
    // marked as what fixed it last time.
    expect(order[proposalAt]).toContain("execution.checkpointing.interval");
    expect(order[proposalAt]).not.toContain("commit.retry.num-retries: unset");
    expect(order[proposalAt]).toContain("This step fixed it the last time");
    expect(text).not.toContain("This step did not help");

    // /iceberg history lists the first incident with the step that fixed it.
    await import("../support/slack-signing.js").then(({ postSigned, slashCommandBody }) =>
      postSigned(
        harness.url("/slack/events"),
        harness.secret,
        slashCommandBody({ text: "history db.events", userId: "U0ASKER" }),
        "application/x-www-form-urlencoded",
      ),
    );
    const reply = await eventually(
      () => harness.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === "U0ASKER"),
      "the history reply",
    );
    expect(JSON.stringify(reply.blocks)).toMatch(
      /fixed by \*commit less often\* in \d+ (s|min)[^;]*; did not help: raise commit retries/,
    );
  });

  it("when nothing fixed the first incident, the second proposes the step that did not help, marked so", async () => {
    const { harness, alice, lakehouse, again } = await setUp();
    // The first incident: more retries do not help, and the walk is stopped at the next proposal.
    const first = await alertToProposal(harness, 1);
    await approveStep(alice, first, "retries are at the default");
    await eventually(() => /Applied by/.test(everything(harness, first)), "the applied proposal");
    lakehouse.advance(10 * 60_000);
    await eventually(() => /No recovery/.test(everything(harness, first)), "the ineffective verdict");
    await pressButton(alice, first, "playbook_next");
    await eventually(
      () => /execution\.checkpointing\.interval/.test(everything(harness, first)),
      "the next proposal",
    );
    await pressButton(alice, first, "playbook_stop");
    await eventually(() => /\(stopped\)/.test(roots(harness)[0]?.text ?? ""), "the first stopped");

    await again();
    const second = await alertToProposal(harness, 2);
    const thread = harness.standIn.thread(CHANNEL, second).map((m) => `${m.text}${JSON.stringify(m.blocks)}`);
    const seen = thread.find((t) => /Seen on/.test(t));
    expect(seen).toContain("Did not help then: raise commit retries");
    // No step fixed it, so the playbook's first step stands, and its proposal says it did not help.
    const proposal = thread.find((t) => t.includes("playbook_skip"));
    expect(proposal).toContain("commit.retry.num-retries");
    expect(proposal).toContain("This step did not help the last time this table failed this way.");
    expect(proposal).not.toContain("This step fixed it the last time");
  });
});
