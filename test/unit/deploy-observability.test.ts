// The Grafana dashboard reads the metrics the bot really registers, and the Alertmanager example
// routes every alert of the rules file to the bot's webhook on the receiver Service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { createMetrics } from "../../src/adapters/http/metrics.js";
import { registerSweepMetrics } from "../../src/adapters/http/sweep-metrics.js";

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
});
