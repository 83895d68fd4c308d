// Alert intake answers after one Redis round trip whatever the batch, and the work it promises
// is never lost: it is queued after the answer, or by the promise keeper when that did not happen.

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type BotQueues, createQueues } from "../../src/adapters/queue/queues.js";
import { SlackOutbox } from "../../src/adapters/slack/outbox/outbox.js";
import { slackOutboxSender } from "../../src/adapters/slack/outbox/say.js";
import { IncidentStore } from "../../src/adapters/store/incident-store.js";
import type { AlertEvent } from "../../src/core/incident/model.js";
import { BotConfigSchema } from "../../src/core/settings.js";
import { acceptAlerts } from "../../src/services/alerts.js";
import { keepIntakePromises } from "../../src/services/intake-promises.js";
import { until } from "../support/poll.js";
import { REDIS_URL, type TestRedisScope, testRedisScope } from "../support/redis.js";

const silent = { info() {}, warn() {}, error() {} };

function alert(table: string, n: number, status: "firing" | "resolved" = "firing"): AlertEvent {
  return {
    source: "alertmanager",
    status,
    alertName: "IcebergCommitStalled",
    labels: { alertname: "IcebergCommitStalled", table },
    startsAt: 1_700_000_000_000,
    ...(status === "resolved" ? { endsAt: 1_700_000_600_000 } : {}),
    fingerprint: `fp-${table}-${n}`,
  };
}

describe("alert intake", () => {
  let scope: TestRedisScope | undefined;
  let queues: BotQueues | undefined;
  let redis: Redis | undefined;
  let outboxRedis: Redis | undefined;
  let monitor: Redis | undefined;
  afterEach(async () => {
    await queues?.obliterate().catch(() => {});
    await queues?.close();
    await redis?.quit();
    await outboxRedis?.quit();
    monitor?.disconnect();
    await scope?.cleanup();
  });

  function wire() {
    scope = testRedisScope("intake");
    redis = new Redis(REDIS_URL);
    const store = new IncidentStore(redis, { namespace: scope.namespace });
    // The Slack outbox on a connection of its own, as the queues are: the monitor watches the intake's.
    outboxRedis = new Redis(REDIS_URL);
    const outbox = new SlackOutbox(outboxRedis, scope.namespace);
    queues = createQueues({
      connection: { url: REDIS_URL },
      prefix: scope.queuePrefix,
      names: scope.queueNames,
    });
    const deps = {
      store,
      queues,
      slack: slackOutboxSender(
        outbox,
        new IncidentStore(outboxRedis, { namespace: scope.namespace }),
        Date.now,
      ),
      bot: BotConfigSchema.parse({}),
      incidentChannel: "C0INTAKE",
      now: () => 1_700_000_100_000,
      log: silent,
    };
    return { store, queues, deps, outbox };
  }

  it("records 60 alerts about 3 tables in one round trip and queues one card and diagnosis per table", async () => {
    const { store, queues, deps, outbox } = wire();
    await redis!.ping();
    const ourPort = (redis as unknown as { stream: { localPort: number } }).stream.localPort;
    const seen: string[] = [];
    // ioredis marks a connection as monitoring only after MONITOR's OK has been handled, so on a
    // busy server another client's line that arrives in the same read is taken for a reply and
    // emitted as "Command queue state error" (an ioredis race). Only other clients' lines are
    // lost that way, before ours start; any other error on the feed fails the test.
    const feedErrors: Error[] = [];
    monitor = new Redis(REDIS_URL, { monitor: true });
    monitor.on("error", (error: Error) => {
      if (!error.message.startsWith("Command queue state error")) feedErrors.push(error);
    });
    await new Promise<void>((resolve) => monitor!.once("monitoring", () => resolve()));
    const feed = monitor;
    feed.on("monitor", (_time: string, args: string[], source: string) => {
      if (source.endsWith(`:${ourPort}`)) seen.push(String(args[0]).toLowerCase());
    });
    const tables = ["db.a", "db.b", "db.c"];
    const alerts = Array.from({ length: 60 }, (_, i) => alert(tables[i % 3]!, i));

    const outcome = await acceptAlerts(deps, alerts);
    await outcome.queued;
    // The outbox is cleared last: once MONITOR shows that, the batch's commands are all in.
    await until(() => seen.includes("zrem"), "the outbox clearing on the monitor feed", { intervalMs: 20 });
    feed.disconnect();

    expect(feedErrors).toEqual([]);
    expect(outcome).toMatchObject({ accepted: 60, ignored: 0 });
    expect(outcome.opened).toHaveLength(3);
    // One script for the whole batch; clearing the outbox comes after the jobs are queued.
    // (EVAL the first time on a connection, EVALSHA after that.)
    expect(seen).toEqual([expect.stringMatching(/^eval(sha)?$/), "zrem"]);
    const incidents = await Promise.all(tables.map((t) => store.openIncidentFor(t)));
    expect(incidents.map((i) => i?.alertCount)).toEqual([20, 20, 20]);
    expect(incidents.map((i) => i?.diagnoses)).toEqual([1, 1, 1]);
    expect((await store.timeline(incidents[0]!.id)).map((e) => e.kind).slice(0, 3)).toEqual([
      "opened",
      "alert",
      "alert",
    ]);
    const diagnoseIds = (await queues.diagnose.getJobs(["waiting"])).map((j) => j.id).sort();
    expect(diagnoseIds).toEqual(incidents.map((i) => `diagnose-${i!.id}-1`).sort());
    for (const incident of incidents)
      expect((await outbox.entries(incident!.id)).map((e) => e.delivery)).toEqual([{ kind: "root" }]);
    expect(await store.duePromises(-60_000)).toEqual([]);

    // A repeat of the same notification is noted and changes nothing.
    const again = await acceptAlerts(deps, [alerts[0]!]);
    expect(again).toMatchObject({ accepted: 1, opened: [] });
    expect((await store.openIncidentFor("db.a"))?.alertCount).toBe(20);
  });

  it("queues what a receiver promised but never queued, once, from the outbox", async () => {
    const { store, queues, deps, outbox } = wire();
    // What a receiver that died right after its answer leaves behind: the script ran, no enqueue.
    const [opened] = await store.intake(
      [
        {
          repeatKey: "r1",
          status: "firing",
          table: "db.lost",
          channel: "C0INTAKE",
          alertName: "IcebergCommitStalled",
          text: "IcebergCommitStalled firing",
          fingerprint: "f1",
        },
      ],
      deps.now(),
      3600,
    );
    expect(opened).toMatchObject({ kind: "opened" });
    const [resolved] = await store.intake(
      [
        {
          repeatKey: "r2",
          status: "resolved",
          table: "db.lost",
          channel: "C0INTAKE",
          alertName: "IcebergCommitStalled",
          text: "IcebergCommitStalled resolved",
          fingerprint: "f1",
        },
      ],
      deps.now(),
      3600,
    );
    expect(resolved).toMatchObject({ kind: "resolved-noted", cardVersion: 2 });
    // Young entries belong to a receiver that may still be queueing them.
    expect(await keepIntakePromises(deps)).toBe(0);
    expect(await keepIntakePromises(deps, 0)).toBe(2);
    expect(await keepIntakePromises(deps, 0)).toBe(0);
    const id = (opened as { incidentId: string }).incidentId;
    expect((await queues.diagnose.getJobs(["waiting"])).map((j) => j.id)).toEqual([`diagnose-${id}-1`]);
    expect((await outbox.entries(id)).map((e) => e.delivery.kind).sort()).toEqual(["card", "root"]);
  });
});
