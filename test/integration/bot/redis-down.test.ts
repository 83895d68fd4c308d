// `serve` with Redis unreachable, as a real process: it still listens, says so once per retry
// period in structured lines (no raw stack traces on stderr), /readyz answers 503 naming Redis,
// and SIGTERM ends it.

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REDIS_RETRY_PERIOD_MS } from "../../../src/adapters/queue/connection-errors.js";
import { freePort } from "../../../src/util/free-port.js";
import { until } from "../../support/poll.js";

const root = path.resolve(import.meta.dirname, "../../..");
const main = path.join(root, "src/cli/main.ts");

describe("the bot with Redis unreachable", () => {
  it("logs one structured line per retry period, reports not ready, and stops on SIGTERM", async () => {
    const [redisPort, httpPort] = [await freePort(), await freePort()];
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", main, "serve"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SLACK_BOT_TOKEN: "xoxb-test",
        SLACK_SIGNING_SECRET: "signing-secret-for-the-test",
        SLACK_API_URL: "http://127.0.0.1:9/api/",
        ALERT_WEBHOOK_TOKEN: "webhook-token",
        INCIDENT_CHANNEL: "C0TEST",
        BOT_CONFIG: "defaults: { approvers: [U0ALICE] }",
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        PORT: String(httpPort),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await until(() => stdout.includes("iceberg-bot listening"), "the receiver to listen");
      const listeningAt = Date.now();
      const ready = await fetch(`http://127.0.0.1:${httpPort}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ ok: false });

      // Two retry periods and a bit: at most one line per period (plus the first one).
      await new Promise((resolve) => setTimeout(resolve, 2 * REDIS_RETRY_PERIOD_MS + 500));
      const elapsed = Date.now() - listeningAt;
      const lines = stdout
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const redisLines = lines.filter((l) => l.msg === "redis unreachable, retrying");
      expect(redisLines.length).toBeGreaterThanOrEqual(1);
      expect(redisLines.length).toBeLessThanOrEqual(Math.ceil(elapsed / REDIS_RETRY_PERIOD_MS) + 2);
      expect(redisLines[0]).toMatchObject({ level: 40, code: "ECONNREFUSED" });
      expect(stderr).not.toMatch(/^\s+at /m);

      // It ends (the exit is the event waited for); a stop stuck on Redis would hang the test.
      child.kill("SIGTERM");
      const code = await exited;
      expect([0, 1]).toContain(code);
      expect(stdout).toContain('"msg":"shutting down"');
      expect(stderr).not.toMatch(/^\s+at /m);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
