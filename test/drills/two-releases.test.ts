// Two releases side by side on one Redis, through a whole incident: a rolling update (or a
// rollback) leaves this release's processes sharing Redis with a newer one's. The newer release is
// simulated by what it leaves in Redis, written at the start: an open incident whose hash, walk and
// report are of a format above this release's (with a field this release does not know), a history
// record of a newer format for the drilled table (one that reads as ours, one that does not), and
// a job of a kind this release does not know in each of its five queues. Two processes of this
// release (alert into one receiver, clicks into the other) then walk an incident from the alert to
// resolved. The incident ends as it should (one catalog commit, the card resolved, the history
// kept), and everything the newer release wrote is left as it was: its records byte for byte, its
// jobs delayed for it with no attempt spent, none failed, each said at most once per process.

import { Writable } from "node:stream";
import type { Job, Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/adapters/log.js";
import { HistoryStore } from "../../src/adapters/store/history-store.js";
import { INCIDENT_FORMAT } from "../../src/adapters/store/incident-store.js";
import { REPORT_FORMAT } from "../../src/adapters/store/report-format.js";
import { HISTORY_FORMAT } from "../../src/core/history/record.js";
import { WALK_FORMAT } from "../../src/core/remediation/record-format.js";
import { approveStep, type SlackPerson } from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  startHarness,
} from "../integration/bot/harness.js";
import { closedIncident } from "../support/history-records.js";

const ALICE = "U0ALICE";
const BOT_CONFIG = `
defaults:
  approvers: [${ALICE}]
  followUp: { intervalSeconds: 60, checks: 3 }
tables:
  db.events:
    flinkJobName: events-ingest
  db.orders:
    flinkJobName: orders-ingest
`;
const COMMIT = /^\/v1\/(prod\/)?namespaces\/db\/tables\/events$/;

interface Line {
  level: number;
  msg: string;
  queue?: string;
  job?: string;
  process: number;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("two releases on one Redis through a whole incident", () => {
  it("walks this release's incident to the end and leaves the newer release's records and jobs for it", async () => {
    const lines: Line[] = [];
    const logger = (process: number) =>
      new Writable({
        write(chunk, _encoding, done) {
          for (const text of chunk.toString().split("\n"))
            if (text.trim()) lines.push({ ...JSON.parse(text), process });
          done();
        },
      });
    h = await startHarness("two-releases", { scenario: "competing-appends", botConfig: BOT_CONFIG, bots: 0 });
    const harness = h;
    const botOptions = { remediation: { followUpIntervalMs: 300, diagnosisWaitMs: 5000 } };
    for (const n of [0, 1])
      await harness.addBot({
        ...botOptions,
        log: createLogger(harness.config, { destination: logger(n), level: "info" }),
      });
    const [bot] = harness.bots as [NonNullable<Harness["bots"][0]>];
    const redis = harness.scope.redis;
    const keys = bot.store.keys;
    const now = harness.lakehouse!.clock.now();

    // What the newer release left: an open incident of its formats, in the middle of its walk.
    const newer = (await bot.store.openOrJoin("db.orders", CHANNEL, now)).incident.id;
    await redis.hset(
      keys.incident(newer),
      "format",
      String(INCIDENT_FORMAT + 1),
      "escalation",
      '{"level":2}',
    );
    await redis.hset(
      keys.walk(newer),
      "version",
      "3",
      "data",
      JSON.stringify({
        format: WALK_FORMAT + 1,
        incidentId: newer,
        walk: { status: "awaiting-second-approval" },
      }),
    );
    await redis.hset(
      keys.reports(newer),
      "1",
      JSON.stringify({ format: REPORT_FORMAT + 1, report: { reportVersion: 2, verdict: { v: 1 } } }),
    );
    // Two closed incidents of the drilled table in a newer history format: one whose fields read as
    // ours (kept as written), one whose steps changed shape (passed over).
    const history = new HistoryStore(redis, {
      namespace: harness.scope.namespace,
      resolvedDays: 30,
      now: () => now,
    });
    await history.save({
      ...closedIncident("inc-900", now - 86_400_000, { channel: CHANNEL }),
      format: HISTORY_FORMAT + 1,
    });
    await history.save({
      ...closedIncident("inc-901", now - 43_200_000, { channel: CHANNEL }),
      format: HISTORY_FORMAT + 1,
    });
    const historyKey = `{${harness.scope.namespace}}:history:db.events`;
    const reshaped = JSON.parse((await redis.hget(historyKey, "inc-901")) as string);
    await redis.hset(historyKey, "inc-901", JSON.stringify({ ...reshaped, steps: [{ step: { id: "x" } }] }));
    // A job of a kind this release does not know, in each queue.
    const queues: Queue[] = [
      bot.queues.diagnose,
      bot.queues.slack,
      bot.remediationQueue.queue,
      bot.sweep.queues.control,
      bot.sweep.queues.catalog,
    ];
    const future = { kind: "escalate", incidentId: newer, level: 2 };
    const jobs: Job[] = [];
    for (const queue of queues)
      jobs.push(await queue.add(future.kind, future, { jobId: `escalate-${newer}` }));
    const newerKeys = [keys.incident(newer), keys.walk(newer), keys.reports(newer)];
    const dump = async () => [
      ...(await Promise.all(newerKeys.map((key) => redis.hgetall(key)))),
      await redis.hmget(historyKey, "inc-900", "inc-901"),
    ];
    const before = await dump();

    // This release's incident, alert into the second process, clicks into the first.
    const fired = await postAlert(
      { ...harness, url: (path: string) => harness.url(path, 1) },
      alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
    );
    expect(fired.status).toBe(202);
    const rootOf = () =>
      harness.standIn
        .messages(CHANNEL)
        .find((m) => !m.thread_ts && !m.ephemeralUser && /db\.events/.test(m.text));
    const thread = (ts: string) =>
      harness.standIn
        .thread(CHANNEL, ts)
        .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
        .join("\n");
    const rootTs = await eventually(() => {
      const root = rootOf();
      return root && /playbook_apply/.test(thread(root.ts).replace(JSON.stringify(root.blocks), ""))
        ? root.ts
        : undefined;
    }, "the proposal in the incident thread");
    const alice: SlackPerson = {
      botUrl: harness.url("/slack/events", 0),
      signingSecret: harness.secret,
      standIn: harness.standIn,
      channel: CHANNEL,
      user: ALICE,
    };
    await approveStep(alice, rootTs, "retries are at the default while Spark appends");
    const commits = () =>
      harness.lakehouse!.requests.filter(
        (r) => r.service === "catalog" && r.method === "POST" && COMMIT.test(r.path),
      ).length;
    await eventually(() => commits() === 1, "the catalog commit");
    harness.lakehouse!.advance(6 * 60_000);
    await eventually(() => /commits resumed/.test(rootOf()?.text ?? ""), "the resolved status card");
    await eventually(() => /Recovered/.test(thread(rootTs)), "the verification message");
    const drilled = await eventually(async () => {
      const all = await history.list("db.events");
      return all.find((r) => r.incidentId !== "inc-900" && r.incidentId !== "inc-901");
    }, "the drilled incident in the history");
    expect(drilled.state).toBe("resolved");
    expect(drilled.format).toBe(HISTORY_FORMAT);

    // The incident: one commit, one thread.
    expect(commits()).toBe(1);
    expect(
      harness.standIn.messages(CHANNEL).filter((m) => !m.thread_ts && /db\.events/.test(m.text)),
    ).toHaveLength(1);
    // The newer release's records: as it wrote them.
    expect(await dump()).toEqual(before);
    // Its jobs: left for it, each taken at least once, never failed, no attempt spent.
    for (const job of jobs) {
      const queue = queues.find((q) => q.name === job.queueName) as Queue;
      const now = await queue.getJob(job.id as string);
      expect(await now?.getState(), `${job.queueName}`).toBe("delayed");
      expect(now?.data).toEqual(future);
      expect(now?.attemptsMade ?? 0).toBe(0);
    }
    for (const queue of queues) expect(await queue.getJobCountByTypes("failed"), queue.name).toBe(0);
    const left = lines.filter((l) => l.msg === "job left for a newer release");
    for (const job of jobs) {
      const said = left.filter((l) => l.job === job.id && l.queue === job.queueName);
      expect(said.length, `${job.queueName} ${job.id}`).toBeGreaterThanOrEqual(1);
      // At most once per process: no log storm.
      expect(said.length).toBeLessThanOrEqual(2);
      expect(new Set(said.map((l) => l.process)).size).toBe(said.length);
    }
    // Errors: only what cannot be read, each said once per process.
    const errors = lines.filter((l) => l.level >= 50);
    const byMessage = new Map<string, number>();
    for (const e of errors)
      byMessage.set(`${e.process} ${e.msg}`, (byMessage.get(`${e.process} ${e.msg}`) ?? 0) + 1);
    expect([...byMessage.entries()].filter(([, count]) => count > 1)).toEqual([]);
    expect(errors.map((e) => e.msg).filter((m) => !/cannot be read/.test(m))).toEqual([]);
  });
});
