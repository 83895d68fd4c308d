// Start-up failures that are configuration, not bugs: named, with the fix, and exit 2; a real
// bug keeps its own exit code (70), apart from 1, "needs action".

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ExitCode, exitCodeFor } from "../../../src/cli/exit-codes.js";
import { runCli } from "../../../src/cli/run-cli.js";
import { explainStartupError } from "../../../src/cli/startup-errors.js";
import { CodedError, ErrorCode } from "../../../src/errors.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import { REDIS_URL } from "../../support/redis.js";

async function run(argv: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

describe("start-up errors", () => {
  it("names a port in use, with the fix, and exits 2", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "0.0.0.0", resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const ran = await run(["serve"], {
        REDIS_URL,
        SLACK_BOT_TOKEN: "xoxb-1-2-port-test",
        SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
        PORT: String(port),
        ALERT_WEBHOOK_TOKEN: "hook-token-for-port-test",
        INCIDENT_CHANNEL: "C0PORTTEST",
        BOT_CONFIG: "defaults:\n  approvers: [U0ALICE]\n",
        SLACK_API_URL: "http://127.0.0.1:9/api/",
        LOG_LEVEL: "silent",
      });
      expect(ran.stderr).toContain(`error: Port ${port} is already in use.`);
      expect(ran.stderr).toContain("set PORT to a free port");
      expect(ran.stderr).not.toContain("a bug in iceberg-bot");
      expect(ran.code).toBe(ExitCode.Usage);
    } finally {
      holder.close();
    }
  });

  it("refuses a bot token in SLACK_APP_TOKEN before starting anything, and exits 2", async () => {
    const ran = await run(["start"], {
      REDIS_URL,
      SLACK_BOT_TOKEN: "xoxb-1-2-abc",
      SLACK_APP_TOKEN: "xoxb-1-2-wrong-kind",
    });
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain("SLACK_APP_TOKEN holds a bot token (xoxb-…)");
    expect(ran.stderr).not.toContain("wrong-kind");
  });

  it("stops `serve` and `start` on a token Slack refuses at start (auth.test), with exit 2", async () => {
    const standIn = await startSlackStandIn({ token: "xoxb-the-right-one" });
    try {
      for (const command of ["serve", "start"]) {
        const ran = await run([command], {
          REDIS_URL,
          SLACK_BOT_TOKEN: "xoxb-1-2-revoked-long-ago",
          SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
          PORT: "0",
          ALERT_WEBHOOK_TOKEN: "hook-token-for-auth-test",
          INCIDENT_CHANNEL: "C0AUTHTEST",
          BOT_CONFIG: "defaults:\n  approvers: [U0ALICE]\n",
          SLACK_API_URL: standIn.apiUrl,
          ICEBERG_CATALOG_URL: "http://127.0.0.1:9",
          LOG_LEVEL: "silent",
        });
        expect(ran.code).toBe(ExitCode.Usage);
        expect(ran.stderr).toContain("Slack refused the bot's token at start (invalid_auth)");
        expect(ran.stderr).toContain("SLACK_BOT_TOKEN");
        expect(ran.stderr).not.toContain("revoked-long-ago");
      }
      // Asked once per attempt, and nothing else: the process stopped before it started anything.
      expect(standIn.calls.map((c) => c.method)).toEqual(["auth.test", "auth.test"]);
    } finally {
      await standIn.close();
    }
  });

  it("tells a token Slack refuses at start from a bug", () => {
    // The shape @slack/web-api gives a platform error (data.error is Slack's own code).
    const refused = Object.assign(new Error("An API error occurred: invalid_auth"), {
      code: "slack_webapi_platform_error",
      data: { ok: false, error: "invalid_auth" },
    });
    const explained = explainStartupError(refused, 3000) as CodedError;
    expect(explained.code).toBe(ErrorCode.ConfigInvalid);
    expect(explained.message).toContain("Slack refused the bot's token at start (invalid_auth)");
    expect(exitCodeFor(explained)).toBe(ExitCode.Usage);
  });

  it("gives a real bug its own exit code, not 1", () => {
    expect(exitCodeFor(new CodedError(ErrorCode.Internal, "boom"))).toBe(70);
    expect(ExitCode.Bug).not.toBe(ExitCode.NeedsAction);
  });
});
