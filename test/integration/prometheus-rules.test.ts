// The alert rules that feed the bot (and those about the bot itself), checked by Prometheus's own promtool: syntax (check rules)
// and behaviour on input series (test rules). Series names must be the ones the exporters really
// produce (test/fixtures/prometheus/series.json names the sources).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createMetrics } from "../../src/adapters/http/metrics/registry.js";
import { registerSweepMetrics } from "../../src/adapters/http/metrics/sweep.js";

const run = promisify(execFile);
const RULES = "deploy/prometheus/iceberg-commit-alerts.yml";
const TESTS = "test/prometheus/iceberg-commit-alerts.test.yml";

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: Array<{ name: string; rules: Rule[] }>;
}
interface PromtoolTests {
  tests: Array<{
    input_series: Array<{ series: string }>;
    alert_rule_test?: Array<{ alertname: string; exp_alerts: Array<{ exp_labels: Record<string, string> }> }>;
  }>;
}

const fixture = JSON.parse(readFileSync("test/fixtures/prometheus/series.json", "utf8")) as {
  series: Record<string, { source: string; labels: string[] }>;
  ours: Record<string, string>;
};
const rules = parse(readFileSync(RULES, "utf8")) as RuleFile;
const tests = parse(readFileSync(TESTS, "utf8")) as PromtoolTests;
const allRules = rules.groups.flatMap((g) => g.rules);

/** Metric names in a PromQL expression: identifiers of the exporters' and our own families. */
function metricNames(expr: string): string[] {
  return [...new Set(expr.match(/\b(?:flink_|kafka_|iceberg_|job:)[A-Za-z0-9_:]+/g) ?? [])];
}

describe("Prometheus alert rules for Iceberg commits", () => {
  it("pass promtool check rules and promtool test rules", async () => {
    const checked = await run("promtool", ["check", "rules", RULES]);
    expect(checked.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const tested = await run("promtool", ["test", "rules", TESTS]).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`promtool test rules failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
      },
    );
    expect(tested.stdout).toMatch(/SUCCESS/);
  });

  it("read only series the Flink reporter and the Connect JMX exporter really export", () => {
    const known = new Set([...Object.keys(fixture.series), ...Object.keys(fixture.ours)]);
    const used = allRules.flatMap((r) => metricNames(r.expr));
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((name) => !known.has(name))).toEqual([]);
    const inputs = tests.tests.flatMap((t) => t.input_series.map((s) => s.series.replace(/\{.*$/, "")));
    expect(inputs.filter((name) => !known.has(name))).toEqual([]);
    // Input series carry only labels their exporter gives them.
    for (const t of tests.tests) {
      for (const { series } of t.input_series) {
        const name = series.replace(/\{.*$/, "");
        const labels = [...series.matchAll(/([a-z_]+)="/g)].map((m) => m[1]);
        const allowed = fixture.series[name]?.labels ?? ["connector", "table"];
        expect(
          labels.filter((l) => !allowed.includes(l as string)),
          series,
        ).toEqual([]);
      }
    }
  });

  it("covers every alert with a firing case whose labels name the table or the writer the bot maps", () => {
    const alerts = allRules.filter((r) => r.alert).map((r) => r.alert as string);
    expect(alerts).toEqual([
      "IcebergFlinkCommitStalled",
      "FlinkCheckpointsFailing",
      "IcebergFlinkCommitDurationGrowing",
      "IcebergConnectSinkTaskFailed",
      "IcebergConnectSinkCommitsStopped",
    ]);
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const alert of alerts) {
      const firing = cases.filter((c) => c.alertname === alert).flatMap((c) => c.exp_alerts);
      const quiet = cases.filter((c) => c.alertname === alert && c.exp_alerts.length === 0);
      expect(firing.length, alert).toBeGreaterThan(0);
      expect(quiet.length, alert).toBeGreaterThan(0);
      for (const expected of firing) {
        const labels = expected.exp_labels;
        if (alert.includes("Flink")) expect(labels.table, alert).toBeTruthy();
        else expect(labels.table ?? labels.connector, alert).toBeTruthy();
      }
    }
  });
});

// The bot's own alert rules: promtool-tested, reading only series the bot registers (or `up` of the
// scrape jobs deploy/prometheus/scrape-iceberg-bot.yml defines), each with a firing and a quiet case,
// quiet on a healthy idle bot (a fresh install on a real clock, an idle day), and each pointing at
// its runbook in docs/operations.md.
describe("Prometheus alert rules for the bot itself", () => {
  // Every deployment's rules, and the one that only makes sense with separate workers.
  const BOT_RULES = "deploy/prometheus/iceberg-bot-alerts.yml";
  const SPLIT_RULES = "deploy/prometheus/iceberg-bot-split-alerts.yml";
  const BOT_TESTS = [
    "test/prometheus/iceberg-bot-alerts.test.yml",
    "test/prometheus/iceberg-bot-sweep-alerts.test.yml",
    "test/prometheus/iceberg-bot-idle.test.yml",
  ];
  const rulesOf = (file: string) =>
    (parse(readFileSync(file, "utf8")) as RuleFile).groups.flatMap((g) => g.rules);
  const botRules = [...rulesOf(BOT_RULES), ...rulesOf(SPLIT_RULES)];
  const botTests = {
    tests: BOT_TESTS.flatMap((file) => (parse(readFileSync(file, "utf8")) as PromtoolTests).tests),
  };

  it("pass promtool check rules and promtool test rules", async () => {
    const checked = await run("promtool", ["check", "rules", BOT_RULES, SPLIT_RULES]);
    expect(checked.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const tested = await run("promtool", ["test", "rules", ...BOT_TESTS]).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`promtool test rules failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
      },
    );
    expect(tested.stdout).toMatch(/SUCCESS/);
  });

  it("keep the split deployment's rule apart: start (one process) loads only the common file", () => {
    expect(rulesOf(SPLIT_RULES).map((r) => r.alert)).toEqual(["IcebergBotWorkerDown"]);
    // The common rules never name the worker job alone: under start it is never scraped.
    for (const rule of rulesOf(BOT_RULES))
      expect(rule.expr, rule.alert).not.toMatch(/job="iceberg-bot-worker"/);
    // The idle day loads only the common file, and checks every alert of both stays quiet.
    const idle = parse(readFileSync("test/prometheus/iceberg-bot-idle.test.yml", "utf8")) as PromtoolTests & {
      rule_files: string[];
    };
    expect(idle.rule_files).toEqual([`../../${BOT_RULES}`]);
    const quiet = new Set(idle.tests.flatMap((t) => (t.alert_rule_test ?? []).map((c) => c.alertname)));
    expect(botRules.map((r) => r.alert).filter((a) => !quiet.has(a as string))).toEqual([]);
  });

  it("each link a runbook_url to its row of docs/operations.md", () => {
    const guide = readFileSync("docs/operations.md", "utf8");
    for (const rule of botRules) {
      const anchor = /^docs\/operations\.md#([a-z0-9-]+)$/.exec(rule.annotations?.runbook_url ?? "")?.[1];
      expect(anchor, rule.alert).toBe(rule.alert?.toLowerCase());
      expect(guide, rule.alert).toContain(`<a id="${anchor}"></a>`);
    }
  });

  it("read only metrics the bot registers and the scrape jobs' up series", async () => {
    const { registry } = createMetrics();
    registerSweepMetrics(registry, { latest: async () => undefined, latestWorst: async () => [] }, 10);
    const registered = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const names = (text: string) =>
      [...new Set(text.match(/\biceberg_bot_[a-z_]+/g) ?? [])].map((n) =>
        n.replace(/_(bucket|count|sum)$/, ""),
      );
    const used = botRules.flatMap((r) => names(r.expr));
    expect(used.filter((n) => !registered.has(n))).toEqual([]);
    const inputs = botTests.tests.flatMap((t) => t.input_series.map((s) => s.series.replace(/\{.*$/, "")));
    expect(inputs.filter((n) => n !== "up" && !registered.has(n))).toEqual([]);
    const scrape = parse(readFileSync("deploy/prometheus/scrape-iceberg-bot.yml", "utf8")) as {
      scrape_configs: Array<{ job_name: string }>;
    };
    const jobs = scrape.scrape_configs.map((c) => c.job_name);
    for (const rule of botRules)
      for (const [, job] of rule.expr.matchAll(/job="([^"]+)"/g)) expect(jobs, rule.alert).toContain(job);
  });

  it("cover what an operator must hear about, each alert with a firing and a quiet case", () => {
    const alerts = botRules.map((r) => r.alert as string);
    expect(alerts).toEqual([
      "IcebergBotReceiverDown",
      "IcebergBotInstanceDown",
      "IcebergBotNotReady",
      "IcebergBotBacklogOld",
      "IcebergBotBacklogGrowing",
      "IcebergBotJobsFailing",
      "IcebergBotWebhookUnauthorized",
      "IcebergBotWebhooksRejected",
      "IcebergBotSlackErrors",
      "IcebergBotSlackMessagesDropped",
      "IcebergBotSweepStale",
      "IcebergBotSourceFailing",
      "IcebergBotWorkerRestarting",
      "IcebergBotWorkerDown",
    ]);
    const cases = botTests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const alert of alerts) {
      expect(
        cases.filter((c) => c.alertname === alert && c.exp_alerts.length > 0).length,
        alert,
      ).toBeGreaterThan(0);
      expect(
        cases.filter((c) => c.alertname === alert && c.exp_alerts.length === 0).length,
        alert,
      ).toBeGreaterThan(0);
    }
    // Each alert is explained in the operations guide.
    const guide = readFileSync("docs/operations.md", "utf8");
    expect(alerts.filter((a) => !guide.includes(`\`${a}\``))).toEqual([]);
  });
});
