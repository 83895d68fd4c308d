// The sweep in the whole bot: `/iceberg sweep` over the simulated lakehouse and the Slack
// stand-in, one digest with working buttons, the second sweep's changes and incident links,
// /metrics checked by promtool, and two schedulers that still run one sweep.

import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { closedIncident } from "../../support/history-records.js";
import { eventBody, postSigned } from "../../support/slack-signing.js";
import { click, digests, rankedTables, SWEEP_BOT_CONFIG, slash } from "../sweep-support.js";
import { CHANNEL, eventually, type Harness, quiescent, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const everything = (harness: Harness, ts: string) =>
  harness.standIn
    .thread(CHANNEL, ts)
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
    .join("\n");

describe("the sweep in the bot", () => {
  it("/iceberg sweep posts one digest whose buttons audit in its thread and start the same fix as an incident", async () => {
    h = await startHarness("sweep-digest", { scenario: "sweep-catalog", botConfig: SWEEP_BOT_CONFIG });
    const harness = h;
    // sales.orders failed twice the same way before: the digest lists it with the recurring cause.
    const history = new HistoryStore(harness.scope.redis, {
      namespace: harness.scope.namespace,
      resolvedDays: 30,
      now: () => Date.now(),
    });
    for (const [n, ago] of [
      [1, 3],
      [2, 1],
    ] as const) {
      const openedAtMs = Date.now() - ago * 86_400_000;
      await history.save(
        closedIncident(`inc-${n}`, openedAtMs + 600_000, { table: "sales.orders", channel: CHANNEL }),
      );
    }
    const acked = await slash(harness, "sweep");
    expect(acked.status).toBe(200);
    expect(acked.body).toContain("Starting a sweep");

    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    // Failing right now comes first, before a lower score that only has risky settings.
    expect(rankedTables(digest!)).toEqual([
      "sales.payments",
      "sales.orders",
      "analytics.web.events",
      "analytics.web.sessions",
    ]);
    expect(digest!.text).toBe("Sweep: 9 tables, 3 with failing checks, 1 failing now");
    // The sweep grades from the catalog, Flink and Connect: Prometheus, configured, is never asked.
    expect(harness.lakehouse!.requests.filter((r) => r.service === "prometheus")).toEqual([]);
    const blocks = JSON.stringify(digest!.blocks);
    expect(blocks).toContain("this is the first sweep");
    // A score reads against its scale.
    expect(blocks).toContain("`sales.orders`* · score 62/100");
    expect(blocks).toContain("`retry-budget` 1 fail, 2 warn");
    // Only a table whose diagnosis has a next step offers the guided fix.
    expect(blocks.match(/"action_id":"sweep_fix"/g)).toHaveLength(1);
    expect(blocks).toContain("Failed more than once in the last");
    expect(blocks).toContain("`sales.orders`: 2 incidents, 2× commit conflict (competing appends)");

    await click(harness, digest!, "sweep_audit", "sales.orders");
    const audit = await eventually(
      () =>
        harness.standIn
          .thread(CHANNEL, digest!.ts)
          .find((m) => m.ts !== digest!.ts && /sales\.orders/.test(m.text)),
      "the audit in the digest's thread",
    );
    expect(JSON.stringify(audit.blocks)).toContain("retry-budget");

    await click(harness, digest!, "sweep_fix", "sales.payments");
    const incident = await eventually(
      () => harness.bots[0]!.store.openIncidentFor("sales.payments"),
      "the incident",
    );
    // The same walk as an alert's incident: its root card, its diagnosis, the proposal and its buttons.
    const root = await eventually(
      async () => (await harness.bots[0]!.store.require(incident.id)).rootTs,
      "the incident's root message",
    );
    await eventually(
      () =>
        /playbook_apply/.test(everything(harness, root)) &&
        /raise-commit-retries|commit\.retry\.num-retries/.test(everything(harness, root)),
      "the proposal with its Apply button",
    );
    const told = await eventually(
      () =>
        harness.standIn
          .messages(CHANNEL)
          .find((m) => m.ephemeralUser === "U0ALICE" && /Opened an incident/.test(m.text)),
      "the answer to Start the fix",
    );
    // It links the new thread: sent after the incident's root message, never before it.
    expect(told.text).toContain(`|its thread>`);
    expect(told.text).toContain(`p${root.replace(".", "")}`);
    expect(digests(harness)).toHaveLength(1);

    // A second sweep links the table in an incident instead of listing it, and says what changed.
    await slash(harness, "sweep");
    const second = await eventually(() => digests(harness)[1], "the second digest");
    expect(rankedTables(second)).not.toContain("sales.payments");
    const secondBlocks = JSON.stringify(second.blocks);
    expect(secondBlocks).toContain("already in an incident");
    expect(secondBlocks).toContain("no new failing checks; none fixed");

    // App Home shows the latest sweep.
    const opened = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      eventBody({ type: "app_home_opened", user: "U0ALICE", channel: "D0HOME", tab: "home" }, "Ev0SWEEPHOME"),
      "application/json",
    );
    expect(opened.status).toBe(200);
    const home = await eventually(() => harness.standIn.views.published.U0ALICE, "the App Home view");
    const homeText = JSON.stringify(home);
    expect(homeText).toContain("Latest sweep");
    expect(homeText).toContain("Sweep: 9 tables, 3 with failing checks, 1 failing now");
    expect(homeText).toContain("sales.orders");
    const metrics = await (await fetch(harness.url("/metrics"))).text();
    expect(metrics).toContain(
      'iceberg_bot_table_check{table="sales.orders",check="retry-budget",status="fail"} 1',
    );
    expect(metrics).toContain('iceberg_bot_table_health_score{table="sales.orders"} 62');
    expect(metrics).toMatch(/iceberg_bot_sweep_tables\{result="graded"\} 9/);
    // promtool reads the exposition exactly as Prometheus would, and lints its names and help.
    const checked = execFileSync("promtool", ["check", "metrics"], { input: metrics, encoding: "utf8" });
    expect(checked.trim()).toBe("");
  });

  it("two bots share one schedule, and two sweeps asked for at once run as one", async () => {
    h = await startHarness("sweep-twice", {
      scenario: "sweep-catalog",
      botConfig: SWEEP_BOT_CONFIG,
      bots: 2,
    });
    const harness = h;
    const [a, b] = harness.bots;
    expect(await a!.sweep.queues.control.getJobSchedulersCount()).toBe(1);
    const schedulers = await b!.sweep.queues.control.getJobSchedulers();
    expect(schedulers.map((s) => s.pattern)).toEqual(["0 6 * * 1"]);

    // Table loads take a while, so the sweep is surely still running when the second request comes.
    harness.lakehouse!.faults.inject({
      service: "catalog",
      path: /^\/v1\/namespaces\/[^/]+\/tables\/[^/]+$/,
      kind: "latency",
      ms: 1500,
    });
    // Two schedulers firing the same tick, or two people asking at once: one sweep starts.
    const t = Date.now();
    const outcomes = await Promise.all([
      a!.sweep.runtime!.service.start({ trigger: "schedule" }, "repeat:sweep-schedule:1", t),
      b!.sweep.runtime!.service.start({ trigger: "schedule" }, "repeat:sweep-schedule:1-other", t),
    ]);
    expect(outcomes.filter((o) => o.started)).toHaveLength(1);
    await slash(harness, "sweep", "U0BOB", 1);
    await eventually(() => digests(harness).length > 0, "the digest");
    await eventually(
      () =>
        harness.standIn
          .messages(CHANNEL)
          .some((m) => m.ephemeralUser === "U0BOB" && /already running/.test(m.text)),
      "the note that a sweep is running",
    );
    await quiescent(harness);
    expect(digests(harness)).toHaveLength(1);
    expect(await a!.sweep.store.running()).toBeUndefined();
  });

  it("sweeps every named catalog and the digest groups its tables by catalog", async () => {
    h = await startHarness("sweep-catalogs", {
      scenario: "multi-cluster-platform",
      botConfig: SWEEP_BOT_CONFIG,
    });
    const harness = h;
    expect((await slash(harness, "sweep")).status).toBe(200);
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    expect(digest!.text).toBe("Sweep: 2 tables, 0 with failing checks, 1 failing now");
    const blocks = JSON.stringify(digest!.blocks);
    expect(blocks).toContain("*Catalog `lake-us`:* 1 tables");
    expect(blocks).toContain("*Catalog `lake-eu`:* 1 tables, 0 with failing checks, 1 failing now");
    expect(blocks.indexOf("sales.orders")).toBeGreaterThan(blocks.indexOf("Catalog `lake-eu`"));
  });
});
