// Autopilot through kill -9: a worker process killed before its hold-off's job runs, right after
// its approval (before the commit), right after the commit (before the walk records it), or right
// after its revert's commit leaves, once another worker takes over, exactly one commit and no
// revert when the writer recovers, and exactly one commit and one revert when it does not.

import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../src/main.js";
import { createSimClock } from "../../src/sim/clock.js";
import { pressButton } from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "../integration/bot/harness.js";
import { childWorkerOptions, startChildWorker } from "../support/worker-child.js";

type KillAt = "before-hold-off-ends" | "after-approve" | "during-commit" | "after-apply" | "after-revert";

const botConfig = (holdOffSeconds: number) => `
defaults:
  approvers: [U0ALICE]
  followUp: { intervalSeconds: 60, checks: 2 }
tables:
  db.events:
    flinkJobName: events-ingest
autopilot:
  mode: on
  holdOffSeconds: ${holdOffSeconds}
  policies:
    - name: drill
      tables: [{ namespace: db }]
      steps: [raise-commit-retries]
`;
const COMMIT = /^\/v1\/(prod\/)?namespaces\/db\/tables\/events$/;

let h: Harness | undefined;
let child: ChildProcess | undefined;
let rescuer: Bot | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  await rescuer?.stop();
  await h?.close();
  h = undefined;
  child = undefined;
  rescuer = undefined;
});

/** One incident under autopilot with a worker killed at `killAt`; what landed once another took over. */
async function drill(killAt: KillAt, scenario: string) {
  // Killed before the hold-off ends: an hour's hold-off, ended after the restart by Apply now.
  const before = killAt === "before-hold-off-ends";
  const config = botConfig(before ? 3600 : 1);
  // The receiver alone: every job runs in the worker processes.
  // A worker in another process reads the wall clock: the lakehouse's clock follows it, so the
  // change and the writer's commits are timed on one clock (a frozen one would date the writer's
  // first commit after the change before the change).
  h = await startHarness(`ap-kill-${killAt}`, {
    scenario,
    botConfig: config,
    botOptions: { role: "serve" },
    clock: createSimClock(undefined, { running: true }),
  });
  const harness = h;
  const lake = harness.lakehouse!;
  const commits = () =>
    lake.requests.filter((r) => r.service === "catalog" && r.method === "POST" && COMMIT.test(r.path)).length;
  const thread = () => JSON.stringify(harness.standIn.messages(CHANNEL));
  child = await startChildWorker(
    harness,
    config,
    killAt === "after-approve" || killAt === "after-apply" ? killAt : undefined,
  );
  const exited = new Promise((resolve) => child!.once("exit", resolve));
  // During the commit: the catalog takes it a second after it arrives; the worker dies in between.
  if (killAt === "during-commit")
    lake.faults.inject({
      service: "catalog",
      method: "POST",
      path: COMMIT,
      kind: "latency",
      ms: 1000,
      times: 1,
    });
  expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);

  if (killAt === "during-commit") {
    await eventually(() => commits() === 1 || undefined, "the commit in flight");
    child.kill("SIGKILL");
  }
  if (before) {
    // Killed once the plan is saved (after its job and its announcement were queued).
    await eventually(
      async () =>
        (await harness.scope.redis.keys(`{${harness.scope.namespace}}:autopilot:plan:*`)).length > 0,
      "the plan",
    );
    child.kill("SIGKILL");
  }
  if (killAt === "after-revert") {
    // Killed as soon as the revert's commit reached the catalog: the walk may not have recorded it.
    await eventually(() => commits() === 2 || undefined, "the revert's commit");
    child.kill("SIGKILL");
  }
  await exited;
  expect(child.signalCode).toBe("SIGKILL");
  const landedBeforeRestart = commits();

  rescuer = await startBot(harness.config, {
    role: "worker",
    ...childWorkerOptions(harness),
    now: () => lake.clock.now(),
  });
  if (before) {
    await eventually(() => /autopilot_apply_now/.test(thread()), "the announcement");
    const root = harness.standIn.messages(CHANNEL).find((m) => !m.thread_ts && /db\.events/.test(m.text))!;
    await pressButton(
      {
        botUrl: harness.url("/slack/events"),
        signingSecret: harness.secret,
        standIn: harness.standIn,
        channel: CHANNEL,
        user: "U0ALICE",
      },
      root.ts,
      "autopilot_apply_now",
    );
  }
  // The writer's next commit lands after the change (when the scenario lets it recover).
  await eventually(() => commits() >= 1 || undefined, "the autonomous commit");
  lake.advance(6 * 60_000);
  await eventually(
    () => /commits resumed|Autopilot reverted/.test(thread()) || undefined,
    "the resolution or the revert",
  );
  await quiescent(harness);
  return { landedBeforeRestart, commits: commits(), reverted: /Autopilot reverted/.test(thread()) };
}

describe("autopilot through kill -9", () => {
  it.each(["before-hold-off-ends", "after-approve", "during-commit", "after-apply"] as const)(
    "killed %s: one commit and no revert once the writer recovers",
    async (killAt) => {
      const result = await drill(killAt, "competing-appends");
      expect({ commits: result.commits, reverted: result.reverted }).toEqual({ commits: 1, reverted: false });
      expect(result.landedBeforeRestart).toBe(killAt === "after-apply" || killAt === "during-commit" ? 1 : 0);
    },
  );

  it.each(["after-apply", "after-revert"] as const)(
    "killed %s while the writer does not recover: one commit and one revert",
    async (killAt) => {
      const result = await drill(killAt, "autopilot-retries-do-not-help");
      expect({ commits: result.commits, reverted: result.reverted }).toEqual({ commits: 2, reverted: true });
    },
  );
});
