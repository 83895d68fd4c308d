// Exactly one postmortem through kill -9: a worker process killed at any point of an incident's
// resolution (before or after the history write, while canvases.create is in flight, while the
// note is being posted) leaves, once another worker takes over, one canvas, one postmortem note
// and one history record. The postmortem is queued with the resolution itself; the canvas is
// marked before it is sent and looked for before a retry.

import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { type Bot, startBot } from "../../../src/main.js";
import { approveStep } from "../../../src/sim/slack/person.js";
import { childWorkerOptions, startChildWorker } from "../../support/worker-child.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
  WALK_APPROVER,
  WALK_BOT_CONFIG,
} from "./harness.js";

type CrashAt = "before-history" | "after-history" | "canvas" | "note";

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

const notes = (harness: Harness) =>
  harness.standIn.messages(CHANNEL).filter((m) => m.thread_ts && /Postmortem draft/.test(m.text));

/** Resolves one incident with a worker process killed at `crashAt`; what is left after another takes over. */
async function drill(crashAt: CrashAt) {
  // The receiver alone: every job runs in the worker processes.
  h = await startHarness(`pm-kill-${crashAt}`, {
    scenario: "competing-appends",
    botConfig: WALK_BOT_CONFIG,
    botOptions: { role: "serve" },
  });
  const harness = h;
  const lake = harness.lakehouse!;
  // An answer that never comes while the call is carried out: the worker dies waiting for it.
  const never = new Promise<never>(() => {});
  if (crashAt === "canvas")
    harness.standIn.inject({ method: "canvases.create", kind: "late", releasedBy: never });
  if (crashAt === "note")
    harness.standIn.inject({
      method: "chat.postMessage",
      kind: "late",
      releasedBy: never,
      match: (args) => /Postmortem draft/.test(String(args.text)),
    });
  child = await startChildWorker(
    harness,
    WALK_BOT_CONFIG,
    crashAt === "before-history" || crashAt === "after-history" ? crashAt : undefined,
  );
  const exited = new Promise((resolve) => child!.once("exit", resolve));

  expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
  const root = await eventually(
    () => harness.standIn.messages(CHANNEL).find((m) => !m.thread_ts && /db\.events/.test(m.text)),
    "the incident's root",
  );
  await eventually(
    () => JSON.stringify(harness.standIn.thread(CHANNEL, root.ts)).includes("playbook_apply"),
    "the proposal",
  );
  await approveStep(
    {
      botUrl: harness.url("/slack/events"),
      signingSecret: harness.secret,
      standIn: harness.standIn,
      channel: CHANNEL,
      user: WALK_APPROVER,
    },
    root.ts,
    "retries are at the default",
  );
  await eventually(
    () => JSON.stringify(harness.standIn.thread(CHANNEL, root.ts)).includes("Applied by"),
    "the change",
  );
  // The writer's next commit lands after the change: the follow-up check sees it and resolves.
  lake.advance(6 * 60_000);

  if (crashAt === "canvas")
    await eventually(() => harness.standIn.canvases().length === 1 || undefined, "the canvas, unanswered");
  if (crashAt === "note")
    await eventually(() => notes(harness).length === 1 || undefined, "the note, unanswered");
  if (crashAt === "canvas" || crashAt === "note") child.kill("SIGKILL");
  await exited;
  expect(child.signalCode).toBe("SIGKILL");
  harness.standIn.clearFaults();

  rescuer = await startBot(harness.config, { role: "worker", ...childWorkerOptions(harness) });
  await eventually(() => notes(harness).length > 0 || undefined, "the postmortem note");
  await quiescent(harness);
  const history = new HistoryStore(harness.scope.redis, {
    namespace: harness.scope.namespace,
    resolvedDays: 30,
    now: Date.now,
  });
  return {
    canvases: harness.standIn.canvases().length,
    notes: notes(harness).length,
    histories: (await history.list("db.events")).length,
  };
}

describe("exactly one postmortem through kill -9", () => {
  it.each(["before-history", "after-history", "canvas", "note"] as const)(
    "killed %s: one canvas, one note, one history record after restart",
    async (crashAt) => {
      expect(await drill(crashAt)).toEqual({ canvases: 1, notes: 1, histories: 1 });
    },
  );
});
