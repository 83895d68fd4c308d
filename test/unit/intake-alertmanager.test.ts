import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  bearerToken,
  parseWebhookBody,
  tokenMatches,
  WebhookRejection,
} from "../../src/adapters/http/webhook.js";

const captured = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/upstream/alerting/${name}`, import.meta.url), "utf8"),
  ) as Record<string, unknown>;

describe("Alertmanager v4 intake", () => {
  it("reads the captured firing notification from Alertmanager 0.25", () => {
    const [alert] = parseWebhookBody("alertmanager", captured("alertmanager-0.25.0-captured-firing.json"));
    expect(alert).toMatchObject({
      source: "alertmanager",
      status: "firing",
      alertName: "IcebergCommitStalled",
      fingerprint: "beb8f36a152b4b56",
      summary: "No successful Iceberg commit for iceberg.db.events",
    });
    expect(alert?.labels.table).toBe("iceberg.db.events");
    expect(alert?.startsAt).toBe(Date.parse("2026-11-29T10:38:50Z"));
    // Year 1 means "still firing", not a real end time.
    expect(alert?.endsAt).toBeUndefined();
  });

  it("reads the captured resolved notification with its end time", () => {
    const [alert] = parseWebhookBody("alertmanager", captured("alertmanager-0.25.0-captured-resolved.json"));
    expect(alert?.status).toBe("resolved");
    expect(alert?.endsAt).toBe(Date.parse("2026-11-29T10:38:56Z"));
  });

  it("names the offending field when the body does not match", () => {
    const body = captured("alertmanager-0.25.0-captured-firing.json");
    const alerts = body.alerts as Array<Record<string, unknown>>;
    alerts[0]!.status = "exploded";
    expect(() => parseWebhookBody("alertmanager", body)).toThrow(/field alerts\.0\.status/);
    try {
      parseWebhookBody("alertmanager", { ...body, version: "3" });
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookRejection);
      expect((error as WebhookRejection).status).toBe(400);
      expect((error as Error).message).toContain("field version");
    }
  });

  it("derives a stable fingerprint from the labels when the sender gives none", () => {
    const alert = (labels: Record<string, string>) => ({
      version: "4",
      status: "firing",
      alerts: [{ status: "firing", labels, startsAt: "2026-11-29T10:00:00Z" }],
    });
    const [a] = parseWebhookBody("alertmanager", alert({ alertname: "X", table: "db.a" }));
    const [b] = parseWebhookBody("alertmanager", alert({ table: "db.a", alertname: "X" }));
    const [c] = parseWebhookBody("alertmanager", alert({ alertname: "X", table: "db.b" }));
    expect(a?.fingerprint).toBe(b?.fingerprint);
    expect(a?.fingerprint).not.toBe(c?.fingerprint);
  });

  it("accepts Grafana's body with its own fields and no Alertmanager version", () => {
    const [alert] = parseWebhookBody("grafana", {
      receiver: "iceberg-bot",
      status: "firing",
      orgId: 1,
      state: "alerting",
      title: "[FIRING:1] IcebergCommitStalled",
      message: "commits stalled",
      alerts: [
        {
          status: "firing",
          labels: { alertname: "IcebergCommitStalled", iceberg_table: "db.orders" },
          annotations: {},
          startsAt: "2026-11-29T10:00:00Z",
          endsAt: "0001-01-01T00:00:00Z",
          values: { B: 4210, C: 1 },
          valueString: "[ var='B' value=4210 ]",
          dashboardURL: "http://grafana/d/x",
          panelURL: "http://grafana/d/x?viewPanel=1",
          silenceURL: "http://grafana/alerting/silence/new",
          fingerprint: "0f0e0d0c0b0a0908",
        },
      ],
    });
    expect(alert).toMatchObject({ source: "grafana", fingerprint: "0f0e0d0c0b0a0908" });
    expect(alert?.labels.iceberg_table).toBe("db.orders");
  });
});

describe("webhook bearer token", () => {
  it("accepts only the exact token", () => {
    expect(tokenMatches("secret-token", "secret-token")).toBe(true);
    expect(tokenMatches("secret-tokeN", "secret-token")).toBe(false);
    expect(tokenMatches("secret", "secret-token")).toBe(false);
    expect(tokenMatches(undefined, "secret-token")).toBe(false);
    // No token configured: nothing is accepted, not even an empty header.
    expect(tokenMatches("anything", undefined)).toBe(false);
  });

  it("reads the Bearer scheme case-insensitively and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
