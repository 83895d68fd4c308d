// start / serve / worker check everything their role needs before starting, and list every
// problem at once with exit 2 (no Redis, no Slack is contacted: the checks come first).

import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import type { Env } from "../../src/config.js";

async function run(argv: string[], env: Env): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: { write: () => {} },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stderr };
}

const COMPLETE: Env = {
  SLACK_BOT_TOKEN: "xoxb-1",
  SLACK_SIGNING_SECRET: "secret",
  ALERT_WEBHOOK_TOKEN: "hook",
  INCIDENT_CHANNEL: "C1",
  ICEBERG_CATALOG_URL: "http://127.0.0.1:9",
  BOT_CONFIG: "defaults: { approvers: [U0ALICE] }",
  // An unreachable Redis with no retries would make a start attempt fail fast; the checks above
  // must have refused long before that.
  REDIS_URL: "redis://127.0.0.1:9",
};

describe("bot roles refuse to start without what they need", () => {
  it("serve lists every missing receiver setting at once", async () => {
    const ran = await run(["serve"], {});
    expect(ran.code).toBe(2);
    for (const needed of [
      "SLACK_BOT_TOKEN",
      "SLACK_SIGNING_SECRET or SLACK_APP_TOKEN",
      "ALERT_WEBHOOK_TOKEN",
      "INCIDENT_CHANNEL",
      "approvers",
    ]) {
      expect(ran.stderr).toContain(needed);
    }
    // A receiver diagnoses nothing itself: evidence sources are the worker's business.
    expect(ran.stderr).not.toContain("evidence sources");
  });

  it("worker needs the bot token and an evidence source, not the receiver's settings", async () => {
    const ran = await run(["worker"], { BOT_CONFIG: "defaults: { approvers: [U0ALICE] }" });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("SLACK_BOT_TOKEN");
    expect(ran.stderr).toContain("evidence sources: set at least one of ICEBERG_CATALOG_URL");
    expect(ran.stderr).not.toContain("ALERT_WEBHOOK_TOKEN");
    expect(ran.stderr).not.toContain("SIGNING_SECRET");
  });

  it("start needs both, lists format errors alongside, and names tables nobody may approve", async () => {
    const ran = await run(["start"], {
      ...COMPLETE,
      ICEBERG_CATALOG_URL: undefined,
      FLINK_REST_URL: "not a url",
      SLACK_APP_TOKEN: undefined,
      SLACK_SIGNING_SECRET: undefined,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("FLINK_REST_URL");
    expect(ran.stderr).toContain("SLACK_SIGNING_SECRET or SLACK_APP_TOKEN");

    const approvers = await run(["start"], {
      ...COMPLETE,
      BOT_CONFIG: "tables: { db.a: { approvers: [U0ALICE] }, db.b: {} }",
      SLACK_BOT_TOKEN: undefined,
    });
    expect(approvers.code).toBe(2);
    expect(approvers.stderr).toContain("none for db.b");
    expect(approvers.stderr).not.toContain("db.a");
    expect(approvers.stderr).toContain("SLACK_BOT_TOKEN");
  });
});
