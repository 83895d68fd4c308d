// The Grafana dashboard reads the metrics the bot really registers, and the Alertmanager example
// routes every alert of the rules file to the bot's webhook on the receiver Service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { DEFAULT_BODY_LIMIT } from "../../src/adapters/http/edge.js";
import { createMetrics } from "../../src/adapters/http/metrics/registry.js";
import { registerSweepMetrics } from "../../src/adapters/http/metrics/sweep.js";
import { WEBHOOK_DEADLINE_MS } from "../../src/adapters/http/webhook.js";
import { alertmanagerBody } from "../../src/sim/alertmanager.js";

interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

describe("Grafana dashboard", () => {
  const dashboard = JSON.parse(readFileSync("deploy/grafana/iceberg-bot-dashboard.json", "utf8")) as {
    uid: string;
    panels: Panel[];
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

  it("queries only metrics the bot registers, and shows each of them", async () => {
    const { registry } = createMetrics();
    registerSweepMetrics(registry, { latest: async () => undefined, latestWorst: async () => [] }, 10);
    const all = (await registry.getMetricsAsJSON()).map((m) => m.name);
    // The bot's own families; of the default process and runtime ones, those charted must exist.
    const registered = all.filter((name) => name.startsWith("iceberg_bot_"));
    const runtime = exprs.flatMap((e) => e.match(/\b(?:process|nodejs)_[a-z0-9_]+/g) ?? []);
    expect(runtime.length).toBeGreaterThan(0);
    expect(runtime.filter((name) => !all.includes(name.replace(/_(bucket|count|sum)$/, "")))).toEqual([]);
    const used = new Set(
      exprs
        .flatMap((e) => e.match(/iceberg_bot_[a-z_]+/g) ?? [])
        .map((n) => n.replace(/_(bucket|count|sum)$/, "")),
    );
    expect([...used].filter((name) => !registered.includes(name))).toEqual([]);
    expect(registered.filter((name) => !used.has(name))).toEqual([]);
  });

  it("has distinct panel ids and a query in every graph", () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((p) => p.type !== "row")) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
  });
});

describe("Alertmanager route example", () => {
  const config = parse(readFileSync("deploy/alertmanager/iceberg-bot-route.yml", "utf8")) as {
    route: { routes: Array<{ receiver: string; matchers: string[]; continue?: boolean }> };
    receivers: Array<{
      name: string;
      webhook_configs?: Array<{
        url: string;
        send_resolved: boolean;
        http_config: { authorization: { type: string; credentials_file: string } };
      }>;
    }>;
  };
  const rules = parse(readFileSync("deploy/prometheus/iceberg-commit-alerts.yml", "utf8")) as {
    groups: Array<{ rules: Array<{ alert?: string }> }>;
  };

  it("sends every alert of the rules file to the bot's webhook on the receiver Service, with its token", () => {
    const route = config.route.routes.find((r) => r.receiver === "iceberg-bot");
    const matcher = route?.matchers.find((m) => m.startsWith("alertname =~"));
    const pattern = new RegExp(`^(?:${JSON.parse(matcher?.replace(/^alertname =~ /, "") ?? '""')})$`);
    const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).filter(Boolean) as string[];
    expect(alerts.filter((a) => !pattern.test(a))).toEqual([]);

    const webhook = config.receivers.find((r) => r.name === "iceberg-bot")?.webhook_configs?.[0];
    const url = new URL(webhook?.url ?? "");
    expect(url.pathname).toBe("/webhooks/alertmanager");
    expect(webhook?.send_resolved).toBe(true);
    expect(webhook?.http_config.authorization.type).toBe("Bearer");
    const service = parseAllDocuments(readFileSync("deploy/kubernetes/receiver.yaml", "utf8"))
      .map((d) => d.toJSON())
      .find((d) => d.kind === "Service");
    expect(url.hostname).toBe(`${service.metadata.name}.${service.metadata.namespace}.svc`);
    expect(Number(url.port)).toBe(service.spec.ports[0].port);
  });
  it("ships the webhook settings the README gives, and they keep every notification retried", () => {
    type Webhook = { max_alerts?: number; timeout?: string };
    const shipped = config.receivers.find((r) => r.name === "iceberg-bot")?.webhook_configs?.[0] as Webhook;
    // The README's step 4 example of the Alertmanager receiver.
    const readme = readFileSync("README.md", "utf8");
    const block = readme.match(/```yaml\n(\s*receivers:[\s\S]*?)```/)?.[1] ?? "";
    const documented = (
      parse(block.replace(/^ {3}/gm, "")) as { receivers: Array<{ webhook_configs: Webhook[] }> }
    ).receivers[0]?.webhook_configs[0];
    expect(documented?.max_alerts).toBeGreaterThan(0);
    expect(shipped.max_alerts).toBe(documented?.max_alerts);
    expect(shipped.timeout).toBe(documented?.timeout);
    // Alertmanager waits longer than the bot takes to answer 503, so a slow Redis is retried.
    const seconds = Number(/^(\d+)s$/.exec(shipped.timeout ?? "")?.[1]);
    expect(seconds * 1000).toBeGreaterThan(WEBHOOK_DEADLINE_MS);
    // max_alerts commit alerts, with the labels and annotations the commit rules give them, fit
    // under the body limit (a 413 is never retried: those alerts would be lost).
    const alerts = Array.from({ length: shipped.max_alerts ?? 0 }, (_, i) => ({
      table: `warehouse_db.clickstream_events_${i}`,
      labels: {
        alertname: "IcebergFlinkCommitStalled",
        job_name: `clickstream-events-ingest-${i}`,
        namespace: "streaming-production",
        pod: `clickstream-events-ingest-taskmanager-1-${i}`,
        instance: "10.42.17.123:9249",
        job: "flink-taskmanagers",
      },
      annotations: {
        description:
          "The Iceberg committer of this job has not committed for more than three checkpoint intervals (at least 10 minutes); readers see stale data.",
      },
    }));
    expect(Buffer.byteLength(alertmanagerBody(alerts))).toBeLessThan(DEFAULT_BODY_LIMIT);
  });
});
